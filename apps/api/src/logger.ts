import { Logger as NestLogger } from '@nestjs/common';
import type { Logger } from '@statehouse/state';

/** The state layer logs through Nest's logger in the API process. */
export function stateLogger(context = 'State'): Logger {
  const logger = new NestLogger(context);
  const withContext = (message: string, extra?: Record<string, unknown>) =>
    extra && Object.keys(extra).length ? `${message} ${JSON.stringify(extra)}` : message;
  return {
    info: (message, extra) => logger.log(withContext(message, extra)),
    warn: (message, extra) => logger.warn(withContext(message, extra)),
    error: (message, extra) => logger.error(withContext(message, extra)),
  };
}
