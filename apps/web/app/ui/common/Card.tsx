import { type ReactNode, useId } from 'react';
import { cx } from './cx';

interface CardProps {
  title?: ReactNode;
  description?: ReactNode;
  /** Buttons or links shown on the right of the title. */
  actions?: ReactNode;
  /** Heading level of the title, so cards fit the page outline. */
  headingLevel?: 2 | 3;
  padded?: boolean;
  className?: string;
  children?: ReactNode;
}

/** A titled surface. With a title it is a labelled region, so screen readers can jump to it. */
export function Card({ title, description, actions, headingLevel = 2, padded = true, className, children }: CardProps) {
  const headingId = useId();
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section className={cx('card', className)} aria-labelledby={title ? headingId : undefined}>
      {title || actions ? (
        <header className="card__header">
          <div>
            {title ? (
              <Heading id={headingId} className="card__title">
                {title}
              </Heading>
            ) : null}
            {description ? <p className="card__description">{description}</p> : null}
          </div>
          {actions ? <div className="card__actions">{actions}</div> : null}
        </header>
      ) : null}
      <div className={cx(padded && 'card__body')}>{children}</div>
    </section>
  );
}
