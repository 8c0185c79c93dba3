import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './api';
import { usePageVisible } from './page-visibility';

/**
 * Loads data, keeps the last good value and the last error, and reloads on demand or every
 * `pollMs` while the browser tab is shown: a hidden tab stops polling, and catches up at once
 * when it is shown again.
 */
export function useLoader<T>(load: () => Promise<T>, deps: unknown[], pollMs?: number) {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const visible = usePageVisible();
  const latest = useRef(load);
  latest.current = load;
  const reload = useCallback(async () => {
    try {
      setValue(await latest.current());
      setError(null);
    } catch (failure) {
      setError(describeError(failure));
    }
  }, []);
  // Loaded once per change of what is shown, whether or not the tab is visible.
  useEffect(() => {
    void reload();
  }, deps);
  const wasHidden = useRef(false);
  useEffect(() => {
    if (!pollMs) return undefined;
    if (!visible) {
      wasHidden.current = true;
      return undefined;
    }
    // Shown again after being hidden: what it shows may be stale.
    if (wasHidden.current) void reload();
    wasHidden.current = false;
    const timer = setInterval(() => void reload(), pollMs);
    return () => clearInterval(timer);
  }, [...deps, visible, pollMs]);
  return { value, error, reload };
}

/** Runs a user action, reporting its outcome (the API's message, or its error) in a live region. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const run = useCallback(async (action: () => Promise<string | undefined | void>) => {
    setBusy(true);
    setOutcome(null);
    try {
      const text = await action();
      setOutcome(text ? { ok: true, text } : null);
    } catch (failure) {
      setOutcome({ ok: false, text: describeError(failure) });
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, outcome, run, setOutcome };
}

export function Outcome({ outcome }: { outcome: { ok: boolean; text: string } | null }) {
  if (!outcome) return <p class="sr-status" role="status" aria-live="polite" />;
  return (
    <p class={outcome.ok ? 'notice' : 'error'} role={outcome.ok ? 'status' : 'alert'}>
      {outcome.text}
    </p>
  );
}

export function LoadError({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

export function Panel({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="panel" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** A button that asks once more before a destructive action. */
export function ConfirmButton(props: {
  label: string;
  question: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      class="danger"
      disabled={props.disabled}
      onClick={() => {
        if (window.confirm(props.question)) props.onConfirm();
      }}
    >
      {props.label}
    </button>
  );
}

/** A secret shown once, with a copy button. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="shown-once" role="status">
      <p>
        <strong>{label}</strong> — store it now, it is shown only once.
      </p>
      <code data-testid="shown-once">{value}</code>{' '}
      <button
        type="button"
        onClick={() =>
          navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/**
 * A table of records: column headings, an unlabelled (screen-reader "Actions") last column when
 * rows carry buttons; on a narrow screen each row becomes a card of "column: value" lines.
 */
export function Table(props: {
  columns: string[];
  testId?: string;
  actions?: boolean;
  children: ComponentChildren;
}) {
  const table = useRef<HTMLTableElement>(null);
  // Each cell names its column, which a phone's card layout shows before the value.
  useLayoutEffect(() => {
    for (const row of Array.from(table.current?.tBodies[0]?.rows ?? [])) {
      Array.from(row.cells).forEach((cell, index) => {
        const column = props.columns[index];
        if (column !== undefined) cell.dataset['label'] = column;
      });
    }
  });
  return (
    <div class="table-wrap">
      <table data-testid={props.testId} ref={table}>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col" key={column}>
                {column}
              </th>
            ))}
            {props.actions && (
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
