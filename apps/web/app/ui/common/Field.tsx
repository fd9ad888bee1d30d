import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from 'react';
import { cx } from './cx';

interface FieldProps {
  label: ReactNode;
  /** The id of the control inside, which the label points at. */
  htmlFor: string;
  hint?: ReactNode;
  error?: ReactNode;
  className?: string;
  children: ReactNode;
}

/** Label, control, and hint or error. Give the control `aria-describedby={hintId(htmlFor)}` when there is a hint. */
export function Field({ label, htmlFor, hint, error, className, children }: FieldProps) {
  return (
    <div className={cx('field', error ? 'field--invalid' : null, className)}>
      <label className="field__label" htmlFor={htmlFor}>
        {label}
      </label>
      {children}
      {error ? (
        <p className="field__error" id={hintId(htmlFor)}>
          {error}
        </p>
      ) : hint ? (
        <p className="field__hint" id={hintId(htmlFor)}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}

export const hintId = (controlId: string) => `${controlId}-hint`;

export function Input({ className, ...props }: InputHTMLAttributes<HTMLInputElement>) {
  return <input className={cx('input', className)} {...props} />;
}

export function Select({ className, ...props }: SelectHTMLAttributes<HTMLSelectElement>) {
  return <select className={cx('input', 'select', className)} {...props} />;
}

interface CheckboxProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> {
  label: ReactNode;
}

export function Checkbox({ label, className, id, ...props }: CheckboxProps) {
  return (
    <label className={cx('checkbox', className)} htmlFor={id}>
      <input type="checkbox" id={id} {...props} />
      <span>{label}</span>
    </label>
  );
}
