import type { ClientBase } from 'pg';

export interface TableLayout {
  name: string;
  /** Stored columns in table order (generated columns are left to the database). */
  columns: string[];
}

/**
 * Jumbe's tables in the `public` schema, every table after the tables it references, so rows can
 * be loaded in this order with every foreign key checked as they arrive. Read from the catalog
 * rather than listed by hand, so a table added by a later migration is never left out.
 */
export async function tablesInDependencyOrder(client: ClientBase): Promise<TableLayout[]> {
  const tables = await client.query<{ name: string; columns: string[] }>(`
    SELECT c.relname AS name,
           array_agg(a.attname::text ORDER BY a.attnum) AS columns
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     WHERE n.nspname = 'public' AND c.relkind = 'r' AND NOT c.relispartition
     GROUP BY c.relname
     ORDER BY c.relname`);
  const references = await client.query<{ child: string; parent: string }>(`
    SELECT child.relname AS child, parent.relname AS parent
      FROM pg_constraint k
      JOIN pg_class child ON child.oid = k.conrelid
      JOIN pg_class parent ON parent.oid = k.confrelid
      JOIN pg_namespace n ON n.oid = child.relnamespace
     WHERE k.contype = 'f' AND n.nspname = 'public' AND child.oid <> parent.oid`);
  return dependencyOrder(tables.rows, references.rows);
}

/** Topological order: a table comes after every table it references (names break ties). */
export function dependencyOrder<T extends { name: string }>(
  tables: T[],
  references: Array<{ child: string; parent: string }>,
): T[] {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const ordered: T[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const visit = (name: string) => {
    const table = byName.get(name);
    if (placed.has(name) || table === undefined) return;
    if (visiting.has(name)) throw new Error(`tables reference each other in a cycle through ${name}`);
    visiting.add(name);
    for (const reference of references) if (reference.child === name) visit(reference.parent);
    visiting.delete(name);
    placed.add(name);
    ordered.push(table);
  };
  for (const table of tables) visit(table.name);
  return ordered;
}

export const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

export const columnList = (columns: string[]) => columns.map(quoteIdentifier).join(', ');
