import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './api';

/** Loads data, keeps the last good value and the last error, and reloads on demand or on a timer. */
export function useLoader<T>(load: () => Promise<T>, deps: unknown[], pollMs?: number) {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
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
  useEffect(() => {
    void reload();
    if (!pollMs) return undefined;
    const timer = setInterval(() => void reload(), pollMs);
    return () => clearInterval(timer);
  }, deps);
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
 * rows carry buttons, and a wrapper that scrolls sideways on a narrow screen.
 */
export function Table(props: {
  columns: string[];
  testId?: string;
  actions?: boolean;
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table data-testid={props.testId}>
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
