import { Card } from '@/app/ui/common';
import { ImportUploadForm } from './ImportUploadForm';

/** The upload form with what to do without JavaScript (the CLI). */
export function ImportUploadCard() {
  return (
    <Card
      title="Import a Hermes state.db"
      description="The file is uploaded to the API and imported in the background; one import runs at a time."
    >
      <ImportUploadForm />
      <noscript>
        <p>
          Uploading needs JavaScript. Without it, import from a shell: <code>npm run import -- hermes --db PATH</code>.
        </p>
      </noscript>
    </Card>
  );
}
