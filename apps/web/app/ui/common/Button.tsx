import Link from 'next/link';
import type { ButtonHTMLAttributes, ComponentProps } from 'react';
import { cx } from './cx';

export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger';
export type ButtonSize = 'sm' | 'md';

interface StyleProps {
  variant?: ButtonVariant;
  size?: ButtonSize;
}

export function buttonClass({ variant = 'secondary', size = 'md' }: StyleProps, className?: string): string {
  return cx('btn', `btn--${variant}`, size === 'sm' && 'btn--sm', className);
}

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & StyleProps;

export function Button({ variant, size, className, type = 'button', ...props }: ButtonProps) {
  return <button type={type} className={buttonClass({ variant, size }, className)} {...props} />;
}

export type ButtonLinkProps = ComponentProps<typeof Link> & StyleProps;

/** A link that looks like a button: navigation stays a link (middle-click, copy address). */
export function ButtonLink({ variant, size, className, ...props }: ButtonLinkProps) {
  return <Link className={buttonClass({ variant, size }, className)} {...props} />;
}
