import { IdSchema } from '@statehouse/contracts';
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { ApiErrorAlert, Breadcrumbs } from '@/app/ui/common';
import { SessionLabels } from '@/app/ui/labels/SessionLabels';
import { ContinuedNotice } from '@/app/ui/lineage/ContinuedNotice';
import { LineageCard } from '@/app/ui/lineage/LineageCard';
import { BusyNotice } from '@/app/ui/sessions/BusyNotice';
import { ManageCard } from '@/app/ui/sessions/ManageCard';
import { RoutingCard } from '@/app/ui/sessions/RoutingCard';
import { RuntimeCard } from '@/app/ui/sessions/RuntimeCard';
import { ScheduleCard } from '@/app/ui/sessions/ScheduleCard';
import { SessionHeader, sessionBreadcrumbs } from '@/app/ui/sessions/SessionHeader';
import { SessionLayout } from '@/app/ui/sessions/SessionLayout';
import { SessionMetadata } from '@/app/ui/sessions/SessionMetadata';
import { TranscriptCard } from '@/app/ui/transcript/TranscriptCard';
import { getLineage, getSession, getSessionDelegations, listRoutes, listSessionSchedules } from '@/lib/api';
import { attempt, isMissing } from '@/lib/attempt';
import { loadConversation } from '@/lib/conversation';
import { decodeParam } from '@/lib/params';
import type { RawSearchParams } from '@/lib/paths';
import { sessionHeading } from '@/lib/session-display';
import { currentViewHref, loadTranscript, parseTranscriptView } from '@/lib/transcript';

interface SessionPageProps {
  params: Promise<{ id: string }>;
  searchParams: Promise<RawSearchParams>;
}

/** One fetch per request for the title and the page. */
const loadSession = cache((id: string) => attempt(() => getSession(id)));

export async function generateMetadata({ params }: SessionPageProps): Promise<Metadata> {
  const id = decodeParam((await params).id);
  const session = IdSchema.safeParse(id).success ? await loadSession(id) : null;
  if (!session || isMissing(session)) return { title: 'Session not found' };
  return { title: session.ok ? sessionHeading(session.value).text : `Session ${id}` };
}

/** One session: its transcript (or whole conversation), lineage, management, routing and details. */
export default async function SessionPage({ params, searchParams }: SessionPageProps) {
  const id = IdSchema.safeParse(decodeParam((await params).id));
  if (!id.success) notFound();
  const sessionId = id.data;
  const view = parseTranscriptView(await searchParams);

  const [sessionResult, lineageResult, routesResult, transcriptResult, delegationsResult, schedulesResult] =
    await Promise.all([
      loadSession(sessionId),
      attempt(() => getLineage(sessionId)),
      attempt(async () => (await listRoutes({ sessionId, limit: 50 })).items),
      view.conversation ? null : attempt(() => loadTranscript(sessionId, view)),
      attempt(() => getSessionDelegations(sessionId)),
      attempt(async () => (await listSessionSchedules(sessionId)).items),
    ]);
  if (!sessionResult.ok) {
    if (isMissing(sessionResult)) notFound();
    return (
      <>
        <Breadcrumbs items={sessionBreadcrumbs(sessionId)} />
        <ApiErrorAlert error={sessionResult.error} title="This session could not be loaded" />
      </>
    );
  }
  const conversation =
    view.conversation && lineageResult.ok
      ? await loadConversation(lineageResult.value, { includeHidden: view.includeHidden })
      : null;

  const session = sessionResult.value;
  const lineage = lineageResult.ok ? lineageResult.value : null;

  return (
    <>
      <SessionHeader session={session} lineage={lineage} />
      <SessionLabels sessionId={session.id} profile={session.profile} />
      {session.turn ? <BusyNotice turn={session.turn} /> : null}
      {lineage && lineage.tipId !== session.id && lineage.chain.includes(session.id) ? (
        <ContinuedNotice lineage={lineage} />
      ) : null}

      <SessionLayout
        transcript={
          <TranscriptCard
            session={session}
            view={view}
            lineage={lineageResult}
            transcript={transcriptResult}
            conversation={conversation}
          />
        }
        lineage={<LineageCard lineage={lineageResult} currentId={session.id} />}
        manage={<ManageCard session={session} lineage={lineage} reloadHref={currentViewHref(sessionId, view)} />}
        details={
          <>
            <RoutingCard session={session} routes={routesResult} />
            <RuntimeCard session={session} delegations={delegationsResult} now={Date.now()} />
            <ScheduleCard schedules={schedulesResult} />
            <SessionMetadata session={session} lineage={lineage} />
          </>
        }
      />
    </>
  );
}
