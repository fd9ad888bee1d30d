import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { StateStore } from '@statehouse/state';
import { API_CONFIG, STATE_STORE } from '../common/tokens.js';
import type { ApiConfig } from '../config.js';

/**
 * Applies per-profile retention policies on a timer. Safe with many API processes: each pass
 * takes a job lease in the store, so one process prunes at a time.
 */
@Injectable()
export class RetentionScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Retention');
  private readonly holder = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.retentionIntervalSeconds <= 0) return;
    this.timer = setInterval(() => this.tick(), this.config.retentionIntervalSeconds * 1000);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.store.retention
      .runScheduledPass(this.holder)
      .catch((error) => this.logger.warn(`retention pass failed: ${String(error)}`))
      .finally(() => {
        this.running = undefined;
      });
  }
}
