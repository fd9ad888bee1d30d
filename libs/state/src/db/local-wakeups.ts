import { EventEmitter } from 'node:events';
import type { Executor } from './database.js';
import type { Unsubscribe, Wakeups, WakeupTopic } from './wakeup.port.js';

/** In-process delivery, shared by both dialects' implementations (and used alone for `:memory:`). */
export class LocalWakeups implements Wakeups {
  protected readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  get live(): boolean {
    return false;
  }

  async announceIn(_db: Executor, _topic: WakeupTopic): Promise<void> {}

  local(topic: WakeupTopic): void {
    this.emitter.emit(topic);
  }

  subscribe(topic: WakeupTopic, listener: () => void): Unsubscribe {
    this.emitter.on(topic, listener);
    this.onSubscribersChanged();
    return () => {
      this.emitter.off(topic, listener);
      this.onSubscribersChanged();
    };
  }

  protected subscribers(): number {
    return this.emitter.eventNames().reduce((sum, name) => sum + this.emitter.listenerCount(name), 0);
  }

  protected topics(): WakeupTopic[] {
    return this.emitter.eventNames().filter((name): name is WakeupTopic => typeof name === 'string');
  }

  protected onSubscribersChanged(): void {}

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
    this.onSubscribersChanged();
  }
}
