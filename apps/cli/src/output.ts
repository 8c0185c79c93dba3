/**
 * How a command's result is printed: JSON for scripts (with `--json`, or whenever stdout is not a
 * terminal, as before), aligned tables for a person at a terminal.
 */
export function render(value: unknown, asJson: boolean): string {
  if (asJson) return `${JSON.stringify(value, null, 2)}\n`;
  return `${human(value).join('\n')}\n`;
}

type Row = Record<string, unknown>;

const isRow = (value: unknown): value is Row =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const cell = (value: unknown): string => {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
};

function human(value: unknown): string[] {
  if (Array.isArray(value)) return table(value);
  if (!isRow(value)) return [cell(value)];
  const lines: string[] = [];
  const scalars = Object.entries(value).filter(([, field]) => !isRow(field) && !Array.isArray(field));
  const width = Math.max(0, ...scalars.map(([name]) => name.length));
  for (const [name, field] of scalars) lines.push(`${name.padEnd(width)}  ${cell(field)}`);
  for (const [name, field] of Object.entries(value)) {
    if (!isRow(field) && !Array.isArray(field)) continue;
    if (lines.length > 0) lines.push('');
    lines.push(`${name}:`, ...human(field).map((line) => `  ${line}`));
  }
  return lines;
}

/** Rows of objects as columns (the union of their fields, in first-seen order). */
function table(rows: unknown[]): string[] {
  if (rows.length === 0) return ['(none)'];
  if (!rows.every(isRow)) return rows.map(cell);
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cells = rows.map((row) => columns.map((column) => cell(row[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((line) => line[i].length)));
  const format = (line: string[]) =>
    line
      .map((text, i) => text.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [format(columns.map((column) => column.toUpperCase())), ...cells.map(format)];
}
