import { type DynamicModule, Inject, Module, type OnModuleDestroy } from '@nestjs/common';
import { EVENT_LOG, type EventLog } from '../../infrastructure/event-store/event-log.port.js';
import { openEventLog } from '../../infrastructure/event-store/open-event-log.js';
import type { Runtime } from '../../infrastructure/runtime/runtime.js';
import { CLOCK, DATABASE, EVENT_STORE } from '../../infrastructure/runtime/tokens.js';
import { GetAccountAsOfHandler } from './as-of/account-as-of.query.js';
import { GetTransactionAsOfHandler } from './as-of/transaction-as-of.query.js';
import { ExportHttpController } from './export/export.http-controller.js';

/** Ends the event log's own connection (EventStoreDB) with the application. */
class EventLogClosing implements OnModuleDestroy {
  constructor(@Inject(EVENT_LOG) private readonly log: EventLog) {}

  onModuleDestroy(): Promise<void> {
    return this.log.close();
  }
}

/** For auditors (decision 0044): entities as they stood at an instant, and a user's whole history out. */
@Module({})
export class AuditModule {
  static forRuntime(runtime: Runtime): DynamicModule {
    return {
      module: AuditModule,
      controllers: [ExportHttpController],
      providers: [
        { provide: DATABASE, useValue: runtime.database.db },
        { provide: EVENT_STORE, useValue: runtime.eventStore },
        { provide: CLOCK, useValue: runtime.clock },
        { provide: EVENT_LOG, useFactory: () => openEventLog(runtime.config, runtime.database) },
        EventLogClosing,
        GetTransactionAsOfHandler,
        GetAccountAsOfHandler,
      ],
    };
  }
}
