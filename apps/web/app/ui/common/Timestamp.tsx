import { formatDateTime, formatRelative } from '@/lib/format';

/** A machine-readable time; relative by default with the absolute UTC time as its tooltip. */
export function Timestamp({
  iso,
  relative = true,
  className,
}: {
  iso: string;
  relative?: boolean;
  className?: string;
}) {
  const absolute = formatDateTime(iso);
  return (
    <time dateTime={iso} title={absolute} className={className}>
      {relative ? formatRelative(iso) : absolute}
    </time>
  );
}
