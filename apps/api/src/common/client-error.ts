import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_TITLES, type ProblemCode, problemTypeUri } from '@statehouse/contracts';

/**
 * Requests Node's HTTP parser refuses before any route sees them (a malformed request line, a
 * header that is not HTTP, headers past the size limit) are answered with a problem document too,
 * then the connection is closed — as Node does by default, but in the API's own error format.
 */
export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    const code: ProblemCode = tooLarge ? 'payload_too_large' : 'validation_failed';
    const body = JSON.stringify({
      type: problemTypeUri(code),
      title: PROBLEM_TITLES[code],
      status,
      code,
      detail: tooLarge ? 'the request headers exceed the limit' : 'the request is not valid HTTP',
    });
    socket.end(
      `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
        'Content-Type: application/problem+json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
