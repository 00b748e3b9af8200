/**
 * Form fields of the Settings view: a number that is committed only when it parses and is in
 * range (an error says why otherwise), a select, a checkbox. Every field has a visible label and
 * a hint tied to it for screen readers.
 */
import { useEffect, useId, useState, type ReactNode } from 'react';

interface FieldShell {
  label: string;
  hint?: ReactNode;
  children(ids: { input: string; hint?: string; error?: string }): ReactNode;
  error?: string | null;
}

function Field({ label, hint, error, children }: FieldShell) {
  const id = useId();
  const ids = { input: `${id}-input`, hint: hint ? `${id}-hint` : undefined, error: error ? `${id}-error` : undefined };
  return (
    <div className={`field ${error ? 'field-invalid' : ''}`}>
      <label className="field-label" htmlFor={ids.input}>
        {label}
      </label>
      {children(ids)}
      {hint && (
        <p className="field-hint" id={ids.hint}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={ids.error}>
          {error}
        </p>
      )}
    </div>
  );
}

export interface NumberFieldProps {
  label: string;
  value: number | undefined;
  onChange(v: number): void;
  min?: number;
  max?: number;
  integer?: boolean;
  step?: number | 'any';
  hint?: ReactNode;
  disabled?: boolean;
  testId?: string;
}

export function NumberField({ label, value, onChange, min, max, integer, step, hint, disabled, testId }: NumberFieldProps) {
  const [text, setText] = useState(value == null ? '' : String(value));
  const [error, setError] = useState<string | null>(null);
  // follow outside changes (a preset, a reset) unless the text already means that value
  useEffect(() => {
    setText((t) => (value != null && Number(t) === value && t.trim() !== '' ? t : value == null ? '' : String(value)));
    setError(null);
  }, [value]);
  const commit = (t: string) => {
    setText(t);
    const v = Number(t);
    if (t.trim() === '' || !Number.isFinite(v)) return setError('Enter a number');
    if (integer && !Number.isInteger(v)) return setError('Enter a whole number');
    if (min != null && v < min) return setError(`At least ${min}`);
    if (max != null && v > max) return setError(`At most ${max}`);
    setError(null);
    if (v !== value) onChange(v);
  };
  return (
    <Field label={label} hint={hint} error={error}>
      {(ids) => (
        <input
          id={ids.input}
          className="input"
          type="number"
          inputMode={integer ? 'numeric' : 'decimal'}
          value={text}
          min={min}
          max={max}
          step={step ?? (integer ? 1 : 'any')}
          disabled={disabled}
          aria-invalid={error ? true : undefined}
          aria-describedby={[ids.hint, ids.error].filter(Boolean).join(' ') || undefined}
          data-testid={testId}
          onChange={(e) => commit(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

export function SelectField<T extends string>({ label, value, options, onChange, hint, disabled }: {
  label: string;
  value: T | undefined;
  options: ReadonlyArray<{ value: T; label: string; disabled?: boolean }>;
  onChange(v: T): void;
  hint?: ReactNode;
  disabled?: boolean;
}) {
  return (
    <Field label={label} hint={hint}>
      {(ids) => (
        <select id={ids.input} className="input select" value={value ?? ''} disabled={disabled} aria-describedby={ids.hint} onChange={(e) => onChange(e.currentTarget.value as T)}>
          {value == null && <option value="">–</option>}
          {options.map((o) => (
            <option key={o.value} value={o.value} disabled={o.disabled}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function Checkbox({ label, checked, onChange, disabled, hint }: { label: ReactNode; checked: boolean; onChange(v: boolean): void; disabled?: boolean; hint?: string }) {
  return (
    <label className={`check ${disabled ? 'check-disabled' : ''}`} title={hint}>
      <input type="checkbox" checked={checked} disabled={disabled} onChange={(e) => onChange(e.currentTarget.checked)} />
      <span>{label}</span>
    </label>
  );
}

/** A one-line form: a labelled text input and its button (open a path, add a folder). */
export function PathForm({ label, button, placeholder, onSubmit, busy, testId }: { label: string; button: string; placeholder?: string; onSubmit(v: string): void; busy?: boolean; testId?: string }) {
  const [value, setValue] = useState('');
  const id = useId();
  return (
    <form
      className="path-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) onSubmit(value.trim());
      }}
    >
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <div className="path-form-row">
        <input id={id} className="input mono" value={value} placeholder={placeholder} spellCheck={false} autoComplete="off" data-testid={testId} onChange={(e) => setValue(e.currentTarget.value)} />
        <button type="submit" className="btn" disabled={busy || !value.trim()}>
          {button}
        </button>
      </div>
    </form>
  );
}

export function CopyButton({ text, label = 'Copy path' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-small btn-ghost"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        });
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}
