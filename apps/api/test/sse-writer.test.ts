import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { SseStreams, type SseWriter } from '../src/common/sse-writer.js';

/** A server whose one route hands its response to `handle` as an event stream. */
async function serve(handle: (stream: SseWriter) => Promise<void> | void, options = {}, streams = new SseStreams()) {
  const server: Server = createServer((_request, response: ServerResponse) => {
    void handle(streams.open(response as unknown as Response, options));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, streams };
}

function connect(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(url, resolve).on('error', reject));
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString()));
  });
}

const until = async (check: () => boolean, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('the SSE writer', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });

  it('frames events (event, id, one data line of JSON) with the event-stream headers', async () => {
    const started = await serve(async (stream) => {
      await stream.send({ event: 'receipt', id: 7, data: { text: 'two\nlines' } });
      await stream.send({ data: null });
      stream.close();
    });
    server = started.server;
    const response = await connect(started.url);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache, no-transform');
    expect(await readAll(response)).toBe('event: receipt\nid: 7\ndata: {"text":"two\\nlines"}\n\ndata: null\n\n');
  });

  it('holds the producer back while the client does not read, then goes on when it drains', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    const total = 200;
    let sent = 0;
    const started = await serve(async (stream) => {
      for (let i = 0; i < total; i++) {
        if (!(await stream.send({ event: 'part', id: i, data: chunk }))) return;
        sent++;
      }
      stream.close();
    });
    server = started.server;
    const response = await connect(started.url);
    response.pause();
    // 200 × 64 KiB would be 12.8 MiB buffered; the writer waits for 'drain' long before that.
    await until(() => sent > 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stalledAt = sent;
    expect(stalledAt).toBeLessThan(total / 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sent).toBe(stalledAt);
    const text = await readAll(response.resume());
    expect(sent).toBe(total);
    expect(text.split('\n\n').filter(Boolean)).toHaveLength(total);
  });

  it('sends a keepalive comment while idle', async () => {
    const started = await serve(() => {}, { heartbeatMs: 20 });
    server = started.server;
    const response = await connect(started.url);
    let text = '';
    response.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await until(() => text.includes(': keepalive\n\n'));
  });

  it('aborts its signal when the client leaves; a send after that writes nothing', async () => {
    let writer: SseWriter | undefined;
    const started = await serve((stream) => {
      writer = stream;
    });
    server = started.server;
    const response = await connect(started.url);
    await until(() => writer !== undefined);
    expect(writer!.signal.aborted).toBe(false);
    response.destroy();
    await until(() => writer!.signal.aborted);
    expect(await writer!.send({ data: 1 })).toBe(false);
  });

  it('ends every open stream when the application shuts down', async () => {
    const streams = new SseStreams();
    const started = await serve(() => {}, {}, streams);
    server = started.server;
    const responses = await Promise.all([connect(started.url), connect(started.url)]);
    const ended = responses.map(readAll);
    streams.onModuleDestroy();
    expect(await Promise.all(ended)).toEqual(['', '']);
  });

  it('refuses an event name or id with a line break (it would start another field)', async () => {
    let refused: unknown;
    const started = await serve(async (stream) => {
      refused = await stream.send({ event: 'a\ndata: injected', data: 1 }).catch((error: Error) => error.message);
      stream.close();
    });
    server = started.server;
    expect(await readAll(await connect(started.url))).toBe('');
    expect(refused).toMatch(/line break/);
  });
});
