/**
 * A small chat gateway written with @statehouse/client (docs/clients.md, "Fencing recipes").
 *
 *   STATEHOUSE_API_URL=http://127.0.0.1:3000 STATEHOUSE_TOKEN=sh_… npx tsx examples/gateway/gateway.ts
 *
 * It handles one inbound chat message the way docs/api.md ("Gateways in practice") describes:
 * heartbeat, resolve the chat (create the session when there is none), begin a turn, append the
 * user's message fenced by the turn, "run the model", append the reply, end (complete) the turn.
 *
 * The model is slow on purpose (longer than the turn's one-second lease), and a second worker —
 * another replica of the gateway answering the same chat — takes the expired lease over and writes
 * meanwhile. The reply is then fenced out with `409 stale_generation`; the gateway re-reads the
 * session, waits for the other worker's turn, begins its own and carries on, so the reply is written
 * exactly once (its `platformMessageId` makes a repeated append harmless too).
 *
 * The last line of stdout is the outcome, as JSON.
 */
import { hostname } from 'node:os';
import { createStatehouseClient, isProblem, type SessionHandle, type StatehouseClient } from '@statehouse/client';

const baseUrl = process.env.STATEHOUSE_API_URL ?? 'http://127.0.0.1:3000';
const token = process.env.STATEHOUSE_TOKEN;
if (!token) {
  console.error('set STATEHOUSE_TOKEN (npm run token -- create --role admin --profiles "*" --name gateway)');
  process.exit(2);
}
const profile = process.env.GATEWAY_PROFILE ?? 'example';
const gatewayId = `example-gateway-${process.pid}`;
const TURN_SECONDS = 1;

const client = createStatehouseClient({ baseUrl, token });
const log = (message: string) => console.log(`[gateway] ${message}`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One message from the chat platform. */
const inbound = {
  id: `tg-${Date.now()}`,
  platform: 'telegram',
  chatType: 'dm',
  chatId: process.env.GATEWAY_CHAT_ID ?? '4711',
  userId: 'user-1',
  text: 'What is on my calendar tomorrow?',
};

async function main(): Promise<void> {
  await client.PUT('/v1/gateways/{id}/heartbeat', {
    params: { path: { id: gatewayId } },
    body: { profile, host: hostname(), pid: process.pid, startedAt: new Date().toISOString() },
  });

  const session = await resolveChat(client);
  log(`chat ${inbound.chatType}:${inbound.chatId} → session ${session.handle.id} (${session.via})`);

  const turn = await session.handle.beginTurn({ holder: gatewayId, gatewayId, ttlSeconds: TURN_SECONDS });
  log(`turn ${turn.turnId} began at generation ${turn.generation}`);
  await session.handle.append({
    messages: [{ role: 'user', content: inbound.text, platformMessageId: inbound.id }],
  });

  const reply = await runModel(session.handle.id);
  const generations = [turn.generation];
  let fencedOut = false;
  try {
    await appendReply(session.handle, reply);
  } catch (error) {
    if (!isProblem(error, 'stale_generation')) throw error;
    // Another worker began a newer turn while the model ran: our turn is gone, and the handle has
    // learnt the current generation. Re-read, wait for that turn to end, begin ours, carry on.
    fencedOut = true;
    log(`fenced out: generation ${error.problem.currentGeneration} is current; re-reading and carrying on`);
    await session.handle.refresh();
    const again = await beginWhenFree(session.handle);
    generations.push(again.generation);
    await appendReply(session.handle, reply);
  }
  await session.handle.completeTurn();
  log('turn completed');

  const final = await session.handle.refresh();
  const transcript: string[] = [];
  for await (const message of session.handle.messages()) transcript.push(`${message.role}: ${message.content}`);
  await client.DELETE('/v1/gateways/{id}', { params: { path: { id: gatewayId } } });

  console.log(
    JSON.stringify({
      sessionId: session.handle.id,
      via: session.via,
      fencedOut,
      generations,
      revision: final.revision,
      transcript,
    }),
  );
}

/** `POST /v1/routes/resolve`; no session yet for this chat: create it and route the chat to it. */
async function resolveChat(api: StatehouseClient): Promise<{ handle: SessionHandle; via: string }> {
  const chat = { chatType: inbound.chatType, chatId: inbound.chatId, userId: inbound.userId };
  const resolved = await api.POST('/v1/routes/resolve', {
    body: { profile, source: inbound.platform, ...chat, transportProfile: 'telegram-bot', gatewayId },
  });
  if (resolved.sessionId) return { handle: api.session(resolved.sessionId), via: resolved.via };
  const created = await api.POST('/v1/sessions', {
    body: {
      profile,
      source: inbound.platform,
      sessionKey: resolved.sessionKey,
      ...chat,
      transportProfile: 'telegram-bot',
      gatewayId,
    },
  });
  // The route makes the next message of this chat resolve straight to it (`via: route`).
  await api.PUT('/v1/routes', { body: { profile, sessionKey: resolved.sessionKey, sessionId: created.id } });
  return {
    handle: api.session(created.id, { revision: created.revision, generation: created.generation }),
    via: 'none',
  };
}

/**
 * The model, slower than the lease. Meanwhile a second worker of the gateway (its own client, as
 * another replica would have) finds the lease expired, takes a turn, writes and completes.
 */
async function runModel(sessionId: string): Promise<string> {
  await pause(TURN_SECONDS * 1000 + 300);
  const rival = createStatehouseClient({ baseUrl, token }).session(sessionId);
  await rival.beginTurn({ holder: `${gatewayId}-replica-2`, ttlSeconds: 30 });
  await rival.append({ messages: [{ role: 'assistant', content: 'One moment, checking your calendar…' }] });
  await rival.completeTurn();
  log('a second worker took over the expired lease, wrote and completed');
  return 'Two meetings: 09:00 stand-up and 14:00 design review.';
}

function appendReply(handle: SessionHandle, reply: string) {
  return handle.append({
    messages: [{ role: 'assistant', content: reply, platformMessageId: `reply-${inbound.id}` }],
  });
}

/** Begins a turn, waiting (with backoff) while another worker's lease is live. */
async function beginWhenFree(handle: SessionHandle) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await handle.beginTurn({ holder: gatewayId, gatewayId, ttlSeconds: 30 });
    } catch (error) {
      if (!isProblem(error, 'session_busy') || attempt >= 20) throw error;
      await pause(Math.min(2000, 100 * 2 ** attempt));
    }
  }
}

main().catch((error) => {
  console.error('[gateway] failed:', error);
  process.exit(1);
});
