'use client';

import { useFormStatus } from 'react-dom';
import { Button, type ButtonProps } from './Button';

interface SubmitButtonProps extends Omit<ButtonProps, 'type'> {
  /** Label while the form's action runs. */
  pendingLabel?: string;
}

/** A submit button that shows progress and blocks double submits while its form's action runs. */
export function SubmitButton({ pendingLabel, children, disabled, variant = 'primary', ...props }: SubmitButtonProps) {
  const { pending, data } = useFormStatus();
  // Several submit buttons can share a form (name="intent"): only the one pressed says it is busy.
  const pressed = pending && (!props.name || data?.get(props.name) === props.value);
  return (
    <Button
      type="submit"
      variant={variant}
      disabled={disabled || pending}
      aria-disabled={pending || undefined}
      {...props}
    >
      {pressed && pendingLabel ? pendingLabel : children}
    </Button>
  );
}
