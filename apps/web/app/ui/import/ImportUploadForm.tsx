'use client';

import { ON_CONFLICT, PROFILE_PATTERN } from '@statehouse/contracts';
import { useRouter } from 'next/navigation';
import { type FormEvent, useId, useRef, useState } from 'react';
import { Alert, Button, Checkbox, Field, hintId, Input, LiveRegion, Select } from '@/app/ui/common';
import { hrefWith } from '@/lib/paths';
import { ImportProgressBar } from './ImportProgressBar';
import { formatBytes } from './import-labels';
import './import.css';

type Upload =
  | { state: 'idle' }
  | { state: 'uploading'; loaded: number; total: number; name: string }
  | { state: 'failed'; detail: string };

/**
 * Choose a Hermes state.db and send it: the browser streams the file to the dashboard (upload
 * progress from XMLHttpRequest), which streams it on to the API. Once the API accepted it (202),
 * the page follows the import run.
 */
export function ImportUploadForm() {
  const router = useRouter();
  const ids = { file: useId(), profile: useId(), conflict: useId(), dry: useId() };
  const request = useRef<XMLHttpRequest | null>(null);
  const [upload, setUpload] = useState<Upload>({ state: 'idle' });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const file = form.get('file');
    if (!(file instanceof File) || file.size === 0) {
      setUpload({ state: 'failed', detail: 'Choose a Hermes state.db file first.' });
      return;
    }
    const profile = String(form.get('profile') ?? '').trim();
    const query = hrefWith('/admin/import/upload', {
      profile: profile || undefined,
      onConflict: String(form.get('onConflict') ?? 'skip'),
      dryRun: form.get('dryRun') === 'on' ? 'true' : undefined,
      fileName: file.name.slice(0, 255),
    });
    const xhr = new XMLHttpRequest();
    request.current = xhr;
    setUpload({ state: 'uploading', loaded: 0, total: file.size, name: file.name });
    xhr.upload.onprogress = (progress) => {
      setUpload({ state: 'uploading', loaded: progress.loaded, total: progress.total || file.size, name: file.name });
    };
    xhr.onerror = () => setUpload({ state: 'failed', detail: 'The upload was interrupted (network error).' });
    xhr.onabort = () => setUpload({ state: 'failed', detail: 'The upload was cancelled.' });
    xhr.onload = () => {
      request.current = null;
      let body: { id?: string; detail?: string } = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON
      }
      if (xhr.status === 202 && body.id) {
        setUpload({ state: 'idle' });
        router.push(hrefWith('/admin/import', { run: body.id }));
        return;
      }
      setUpload({
        state: 'failed',
        detail: body.detail ?? `The import was refused (HTTP ${xhr.status}).`,
      });
    };
    xhr.open('POST', query);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.send(file);
  }

  const busy = upload.state === 'uploading';
  return (
    <form className="import-form" onSubmit={submit} aria-describedby={hintId(ids.file)} data-testid="import-form">
      <Field
        className="import-form__file"
        label="Hermes state.db"
        htmlFor={ids.file}
        hint="A copy of ~/.hermes/state.db (make one with sqlite3 state.db '.backup copy.db' while Hermes runs). The file is never changed."
      >
        <Input
          id={ids.file}
          name="file"
          type="file"
          required
          disabled={busy}
          accept=".db,.sqlite,.sqlite3,application/vnd.sqlite3,application/x-sqlite3,application/octet-stream"
          aria-describedby={hintId(ids.file)}
        />
      </Field>
      <Field
        label="Profile for sessions without one"
        htmlFor={ids.profile}
        hint="Used when a session has no profile_name and no origin profile (default: default)."
      >
        <Input
          id={ids.profile}
          name="profile"
          placeholder="default"
          pattern={PROFILE_PATTERN.source.replace(/^\^|\$$/g, '')}
          maxLength={64}
          disabled={busy}
          aria-describedby={hintId(ids.profile)}
        />
      </Field>
      <Field
        label="When a session id exists here"
        htmlFor={ids.conflict}
        hint="Left alone: reported as a conflict. Replaced: the existing session is deleted (with a receipt) and the file's imported."
      >
        <Select
          id={ids.conflict}
          name="onConflict"
          defaultValue="skip"
          disabled={busy}
          aria-describedby={hintId(ids.conflict)}
        >
          {ON_CONFLICT.map((choice) => (
            <option key={choice} value={choice}>
              {choice === 'skip' ? 'Leave it alone' : 'Replace it'}
            </option>
          ))}
        </Select>
      </Field>
      <div className="import-form__actions">
        <Checkbox id={ids.dry} name="dryRun" label="Dry run: report what would happen, write nothing" disabled={busy} />
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? 'Uploading…' : 'Upload and import'}
        </Button>
        {busy ? (
          <Button type="button" variant="secondary" onClick={() => request.current?.abort()}>
            Cancel upload
          </Button>
        ) : null}
      </div>
      <div className="import-form__file">
        {upload.state === 'uploading' ? (
          <ImportProgressBar
            testId="upload-progress"
            label={`Uploading ${upload.name}`}
            fraction={upload.total > 0 ? upload.loaded / upload.total : null}
            detail={`${formatBytes(upload.loaded)} of ${formatBytes(upload.total)}`}
          />
        ) : null}
        <LiveRegion>
          {upload.state === 'failed' ? (
            <Alert tone="danger" title="The file was not imported">
              <p data-testid="import-upload-error">{upload.detail}</p>
            </Alert>
          ) : null}
        </LiveRegion>
      </div>
    </form>
  );
}
