import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import type { StateStore } from '@statehouse/state';
import { AuthController } from './auth/auth.controller.js';
import { StatehouseAuthGuard } from './auth/auth.guard.js';
import { BearerStrategy } from './auth/bearer.strategy.js';
import { CookieStrategy } from './auth/cookie.strategy.js';
import { TokensController } from './auth/tokens.controller.js';
import { UsersController } from './auth/users.controller.js';
import { IdempotencyInterceptor } from './common/idempotency.interceptor.js';
import { SseStreams } from './common/sse-writer.js';
import { API_CONFIG, STATE_STORE } from './common/tokens.js';
import { createValidationPipe } from './common/validation.pipe.js';
import type { ApiConfig } from './config.js';
import { DelegationsController } from './delegations/delegations.controller.js';
import { DeliveriesController } from './deliveries/deliveries.controller.js';
import { FeedsController } from './feeds/feeds.controller.js';
import { GatewaysController } from './gateways/gateways.controller.js';
import { HandoffController } from './handoff/handoff.controller.js';
import { HealthController } from './health/health.controller.js';
import { ImportsController } from './imports/imports.controller.js';
import { JobScheduler } from './jobs/job.scheduler.js';
import { LabelsController } from './labels/labels.controller.js';
import { SessionLabelsController } from './labels/session-labels.controller.js';
import { LineageController } from './lineage/lineage.controller.js';
import { MessagesController } from './messages/messages.controller.js';
import { MetricsController } from './metrics/metrics.controller.js';
import { MetricsInterceptor } from './metrics/metrics.interceptor.js';
import { MetricsRegistry } from './metrics/metrics.registry.js';
import { OpsController } from './ops/ops.controller.js';
import { ProfileMetaController } from './profiles/profile-meta.controller.js';
import { ProfilesController } from './profiles/profiles.controller.js';
import { ReceiptConsumersController } from './receipts/receipt-consumers.controller.js';
import { ReceiptsController } from './receipts/receipts.controller.js';
import { RetentionController } from './retention/retention.controller.js';
import { RoutesController } from './routes/routes.controller.js';
import { SchedulesController } from './schedules/schedules.controller.js';
import { SearchController } from './search/search.controller.js';
import { SearchIndexController } from './search/search-index.controller.js';
import { SessionsController } from './sessions/sessions.controller.js';
import { StatsController } from './stats/stats.controller.js';
import { TestingController } from './testing/testing.controller.js';
import { TurnsController } from './turns/turns.controller.js';

export interface AppDependencies {
  store: StateStore;
  config: ApiConfig;
  metrics: MetricsRegistry;
}

/** The whole API. The store is opened by the caller (main, CLI, tests) and handed in. */
@Module({})
export class AppModule {
  static register(dependencies: AppDependencies): DynamicModule {
    return {
      module: AppModule,
      imports: [PassportModule],
      controllers: [
        HealthController,
        MetricsController,
        AuthController,
        TokensController,
        UsersController,
        ProfilesController,
        ProfileMetaController,
        // Before the sessions controller: its `:id` would otherwise take `/v1/sessions/watch`.
        FeedsController,
        LabelsController,
        SessionLabelsController,
        SessionsController,
        MessagesController,
        TurnsController,
        LineageController,
        SearchIndexController,
        SearchController,
        ReceiptsController,
        ReceiptConsumersController,
        RetentionController,
        RoutesController,
        HandoffController,
        GatewaysController,
        DeliveriesController,
        DelegationsController,
        SchedulesController,
        ImportsController,
        StatsController,
        OpsController,
        // Rule-free writes for tests: only when the API is started with STATEHOUSE_TEST_HOOKS=1.
        ...(dependencies.config.testHooks ? [TestingController] : []),
      ],
      providers: [
        { provide: STATE_STORE, useValue: dependencies.store },
        { provide: API_CONFIG, useValue: dependencies.config },
        { provide: MetricsRegistry, useValue: dependencies.metrics },
        BearerStrategy,
        CookieStrategy,
        JobScheduler,
        SseStreams,
        { provide: APP_GUARD, useClass: StatehouseAuthGuard },
        // Outermost first: metrics time everything, idempotency wraps the handler.
        { provide: APP_INTERCEPTOR, useClass: MetricsInterceptor },
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
