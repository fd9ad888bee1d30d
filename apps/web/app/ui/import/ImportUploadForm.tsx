'use client';

import { type ImportJob, type ImportReport, ON_CONFLICT, PROFILE_PATTERN } from '@statehouse/contracts';
import { useRouter } from 'next/navigation';
import { type FormEvent, useId, useRef, useState } from 'react';
import { Alert, Button, Checkbox, Field, hintId, Input, LiveRegion, Select } from '@/app/ui/common';
import { hrefWith } from '@/lib/paths';
import { ImportProgressBar } from './ImportProgressBar';
import { formatBytes } from './import-labels';
import { ReplaceReview } from './ReplaceReview';
import './import.css';

interface Choice {
  file: File;
  profile: string;
}

type Upload =
  | { state: 'idle' }
  | { state: 'uploading'; loaded: number; total: number; name: string; preview: boolean }
  | { state: 'previewing'; name: string }
  | { state: 'review'; choice: Choice; report: ImportReport; warnings: string[] }
  | { state: 'failed'; detail: string };

const PREVIEW_POLL_MS = 500;
const PREVIEW_TIMEOUT_MS = 10 * 60_000;

/** Waits for a dry run to finish and returns its report (the run's own status, through the dashboard). */
async function dryRunReport(id: string): Promise<ImportReport> {
  const deadline = Date.now() + PREVIEW_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const response = await fetch(`/admin/import/${encodeURIComponent(id)}/status`, { cache: 'no-store' });
    const body = (await response.json().catch(() => ({}))) as Partial<ImportJob> & { detail?: string };
    if (!response.ok) throw new Error(body.detail ?? `The preview could not be read (HTTP ${response.status}).`);
    if (body.state === 'succeeded' && body.report) return body.report;
    if (body.state === 'failed' || body.state === 'interrupted') {
      throw new Error(body.error ?? 'The preview run did not finish.');
    }
    await new Promise((wait) => setTimeout(wait, PREVIEW_POLL_MS));
  }
  throw new Error('The preview took too long; try again, or import with a dry run first.');
}

/**
 * Choose a Hermes state.db and send it: the browser streams the file to the dashboard (upload
 * progress from XMLHttpRequest), which streams it on to the API. Once the API accepted it (202),
 * the page follows the import run. "Replace" deletes existing sessions, so it never runs
 * unseen: the file is first imported as a dry run, its report says how many sessions here would
 * be replaced (and created, updated), and only an explicit confirmation sends it for real.
 */
export function ImportUploadForm() {
  const router = useRouter();
  const ids = { file: useId(), profile: useId(), conflict: useId(), dry: useId() };
  const request = useRef<XMLHttpRequest | null>(null);
  const [upload, setUpload] = useState<Upload>({ state: 'idle' });

  /** Sends the file; a preview is a dry run whose report is awaited here instead of followed. */
  function send(choice: Choice, options: { onConflict: string; dryRun: boolean; preview: boolean }) {
    const { file } = choice;
    const query = hrefWith('/admin/import/upload', {
      profile: choice.profile || undefined,
      onConflict: options.onConflict,
      dryRun: options.dryRun ? 'true' : undefined,
      fileName: file.name.slice(0, 255),
    });
    const xhr = new XMLHttpRequest();
    request.current = xhr;
    setUpload({ state: 'uploading', loaded: 0, total: file.size, name: file.name, preview: options.preview });
    xhr.upload.onprogress = (progress) => {
      setUpload({
        state: 'uploading',
        loaded: progress.loaded,
        total: progress.total || file.size,
        name: file.name,
        preview: options.preview,
      });
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
        if (options.preview) {
          const id = body.id;
          setUpload({ state: 'previewing', name: file.name });
          dryRunReport(id).then(
            (report) => setUpload({ state: 'review', choice, report, warnings: report.warnings }),
            (error: unknown) =>
              setUpload({ state: 'failed', detail: error instanceof Error ? error.message : String(error) }),
          );
          return;
        }
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

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const file = form.get('file');
    if (!(file instanceof File) || file.size === 0) {
      setUpload({ state: 'failed', detail: 'Choose a Hermes state.db file first.' });
      return;
    }
    const choice = { file, profile: String(form.get('profile') ?? '').trim() };
    const onConflict = String(form.get('onConflict') ?? 'skip');
    const dryRun = form.get('dryRun') === 'on';
    // Replacing deletes sessions here: preview first (a dry run), confirm after (review panel).
    const preview = onConflict === 'replace' && !dryRun;
    send(choice, { onConflict, dryRun: dryRun || preview, preview });
  }

  const busy = upload.state === 'uploading' || upload.state === 'previewing' || upload.state === 'review';
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
          {upload.state === 'uploading' ? 'Uploading…' : 'Upload and import'}
        </Button>
        {upload.state === 'uploading' ? (
          <Button type="button" variant="secondary" onClick={() => request.current?.abort()}>
            Cancel upload
          </Button>
        ) : null}
      </div>
      <div className="import-form__file">
        {upload.state === 'uploading' ? (
          <ImportProgressBar
            testId="upload-progress"
            label={`${upload.preview ? 'Uploading for a preview: ' : 'Uploading '}${upload.name}`}
            fraction={upload.total > 0 ? upload.loaded / upload.total : null}
            detail={`${formatBytes(upload.loaded)} of ${formatBytes(upload.total)}`}
          />
        ) : null}
        <LiveRegion>
          {upload.state === 'previewing' ? (
            <p className="field__hint" data-testid="replace-previewing">
              Checking what replacing would change (a dry run of {upload.name}; nothing is written)…
            </p>
          ) : null}
          {upload.state === 'review' ? (
            <ReplaceReview
              report={upload.report}
              name={upload.choice.file.name}
              onConfirm={() => send(upload.choice, { onConflict: 'replace', dryRun: false, preview: false })}
              onCancel={() => setUpload({ state: 'idle' })}
            />
          ) : null}
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
