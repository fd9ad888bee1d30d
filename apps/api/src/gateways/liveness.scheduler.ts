import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { StateStore } from '@statehouse/state';
import { API_CONFIG, STATE_STORE } from '../common/tokens.js';
import type { ApiConfig } from '../config.js';

/**
 * Runs the liveness sweep (docs/domain.md §10.3) at start-up of each API process and then on a
 * timer: orphaned open rows of dead gateways are ended with a recoverable reason, stuck handoffs
 * expire. Safe with many API processes: each sweep takes a job lease, so one runs at a time.
 * TODO(issue 12): move onto the unified job scheduler once it exists.
 */
@Injectable()
export class LivenessScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Liveness');
  private readonly holder = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.sweepIntervalSeconds <= 0) return;
    this.tick();
    this.timer = setInterval(() => this.tick(), this.config.sweepIntervalSeconds * 1000);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.store.gateways
      .sweep(this.holder)
      .catch((error) => this.logger.warn(`liveness sweep failed: ${String(error)}`))
      .finally(() => {
        this.running = undefined;
      });
  }
}
