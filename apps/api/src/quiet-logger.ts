import { ConsoleLogger } from '@nestjs/common';

/** Nest's start-up chatter (one line per route) buries what an operator needs to read. */
const NOISY_CONTEXTS = new Set([
  'RoutesResolver',
  'RouterExplorer',
  'InstanceLoader',
  'NestFactory',
  'NestApplication',
]);

export class QuietLogger extends ConsoleLogger {
  override log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    if (typeof context === 'string' && NOISY_CONTEXTS.has(context)) return;
    super.log(message, ...(rest as [string]));
  }
}
