import { ButtonLink } from './Button';
import { Card } from './Card';
import { EmptyState } from './EmptyState';
import { PageHeader } from './PageHeader';

interface NotFoundCardProps {
  /** The page's `h1`, e.g. "Session not found". */
  title: string;
  description: string;
  back: { href: string; label: string };
}

/**
 * The body of a segment's `not-found.tsx`: the page answers HTTP 404 (pages call `notFound()`
 * before anything is streamed), says what is missing and offers a way back.
 */
export function NotFoundCard({ title, description, back }: NotFoundCardProps) {
  return (
    <>
      <PageHeader title={title} />
      <Card>
        <EmptyState
          title={title}
          description={description}
          action={<ButtonLink href={back.href}>{back.label}</ButtonLink>}
        />
      </Card>
    </>
  );
}
