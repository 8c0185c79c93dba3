/** A plan: the monthly API-hit cap and the session cap an account runs under. */
export interface Plan {
  id: string;
  name: string;
  monthlyApiHits: number;
  maxSessions: number;
  createdAt: Date;
}
