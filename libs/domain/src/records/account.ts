/** A customer account as the services see it: plain data. */
export interface Account {
  id: string;
  name: string;
  planId: string;
  suspended: boolean;
  createdAt: Date;
}
