/** The state layer logs through whatever the host gives it (Nest's logger in the API). */
export interface Logger {
  info(message: string, context?: Record<string, unknown>): void;
  warn(message: string, context?: Record<string, unknown>): void;
  error(message: string, context?: Record<string, unknown>): void;
}

export const consoleLogger: Logger = {
  info: (message, context) => console.log(`[statehouse] ${message}`, context ?? ''),
  warn: (message, context) => console.warn(`[statehouse] ${message}`, context ?? ''),
  error: (message, context) => console.error(`[statehouse] ${message}`, context ?? ''),
};

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
