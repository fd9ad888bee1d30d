import { Alert } from './Alert';
import { ButtonLink } from './Button';

interface QueryIssuesAlertProps {
  /** e.g. "These filters are not valid". */
  title: string;
  issues: string[];
  /** A way back to a valid URL, e.g. the list without filters. */
  reset?: { href: string; label: string };
}

/** The URL asked for something the API's query schema refuses: say what, and offer a clean start. */
export function QueryIssuesAlert({ title, issues, reset }: QueryIssuesAlertProps) {
  return (
    <Alert
      tone="danger"
      role="alert"
      title={title}
      actions={
        reset ? (
          <ButtonLink href={reset.href} size="sm">
            {reset.label}
          </ButtonLink>
        ) : null
      }
    >
      <ul>
        {issues.map((issue) => (
          <li key={issue}>{issue}</li>
        ))}
      </ul>
    </Alert>
  );
}
