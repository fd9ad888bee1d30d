import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RealApi, startRealApi, TEST_DIALECTS } from './support/api.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const GATEWAY = fileURLToPath(new URL('../../../examples/gateway/gateway.ts', import.meta.url));

interface Outcome {
  sessionId: string;
  via: string;
  fencedOut: boolean;
  generations: number[];
  revision: number;
  transcript: string[];
}

/** Runs examples/gateway as a user would (tsx), against `api`; the last stdout line is its outcome. */
async function runGateway(api: RealApi, chatId: string): Promise<Outcome> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', GATEWAY], {
    cwd: ROOT,
    env: { ...process.env, STATEHOUSE_API_URL: api.base, STATEHOUSE_TOKEN: api.adminToken, GATEWAY_CHAT_ID: chatId },
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`examples/gateway against the built API on ${dialect}`, () => {
    let api: RealApi;
    beforeAll(async () => {
      api = await startRealApi(dialect);
    });
    afterAll(async () => api?.stop());

    it('resolves a chat, appends under a turn, survives stale_generation and writes its reply once', async () => {
      const first = await runGateway(api, 'chat-1');
      expect(first.via).toBe('none');
      expect(first.fencedOut).toBe(true);
      // Its first turn, the other worker's, then its own again.
      expect(first.generations).toEqual([first.generations[0], first.generations[0] + 2]);
      expect(first.transcript).toEqual([
        'user: What is on my calendar tomorrow?',
        'assistant: One moment, checking your calendar…',
        'assistant: Two meetings: 09:00 stand-up and 14:00 design review.',
      ]);

      // The next message of the same chat finds the session through its route.
      const second = await runGateway(api, 'chat-1');
      expect(second.via).toBe('route');
      expect(second.sessionId).toBe(first.sessionId);
      expect(second.transcript).toHaveLength(6);

      // Its gateway deregistered on the way out; the session stayed open for the next message.
      const session = await fetch(`${api.base}/v1/sessions/${first.sessionId}`, {
        headers: { Authorization: `Bearer ${api.adminToken}` },
      }).then((response) => response.json());
      expect(session).toMatchObject({ endedAt: null, turn: null, revision: second.revision });
    });
  });
}
