import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE, Reflector } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { HttpErrorFilter } from './infrastructure/http/http-error.filter.js';
import { DtoValidationPipe } from './infrastructure/http/validation.pipe.js';
import { QueryKeysInterceptor } from './infrastructure/http/query-keys.interceptor.js';
import { IdempotencyInterceptor } from './infrastructure/http/idempotency/idempotency.interceptor.js';
import { OpenApiHttpController } from './infrastructure/openapi/openapi.http-controller.js';
import { OPENAPI_DOCUMENT } from './infrastructure/openapi/openapi.tokens.js';
import type { Runtime } from './infrastructure/runtime/runtime.js';
import { ConsistentCommandBus } from './infrastructure/runtime/consistent-command-bus.js';
import { CLOCK, CONFIG, DATABASE, EVENT_STORE, JOBS, LOGGER, READ_YOUR_WRITES, RUNTIME } from './infrastructure/runtime/tokens.js';
import { AccountRemoval } from './modules/accounts/account-removal.js';
import { ExecuteAccountCommandHandler } from './modules/accounts/account.commands.js';
import { GetAccountHandler, GetAccountListItemHandler, ListAccountsHandler } from './modules/accounts/account.queries.js';
import { ListBalanceSnapshotsHandler } from './modules/accounts/balance-snapshot.queries.js';
import { AccountsHttpController } from './modules/accounts/http/accounts.http-controller.js';
import { BrokerageViewsHttpController } from './modules/brokerage/views/brokerage-views.http-controller.js';
import { GetBrokerageOverviewHandler, ListBrokerageAccountsHandler, ListBrokerageActivitiesHandler, ListPortfolioSnapshotsHandler } from './modules/brokerage/views/brokerage-views.queries.js';
import { BrokerageConnectFlows } from './modules/brokerage/connect/brokerage-connect.flows.js';
import { BrokerageDisconnectFlows } from './modules/brokerage/disconnect/brokerage-disconnect.flows.js';
import { ExecuteBrokerageAuthorizationCommandHandler } from './modules/brokerage/authorizations/brokerage-authorization.commands.js';
import { BROKERAGE_LINK, createBrokerageLink } from './modules/brokerage/brokerage-link.wiring.js';
import { BrokerageConnectHttpController } from './modules/brokerage/http/brokerage-connect.http-controller.js';
import { SandboxBrokerageHttpController } from './modules/brokerage/http/sandbox-brokerage.http-controller.js';
import { CategoriesHttpController } from './modules/categories/http/categories.http-controller.js';
import { CategoryDirectory } from './modules/categories/category-directory.js';
import { ExecuteCategoryTaxonomyCommandHandler } from './modules/categories/category.commands.js';
import { GetCategoryGroupHandler, GetCategoryHandler, ListCategoriesHandler } from './modules/categories/category.queries.js';
import { HealthHttpController } from './modules/health/health.http-controller.js';
import { ServicePagesHttpController } from './modules/pages/service-pages.http-controller.js';
import { IdentityModule } from './modules/identity/identity.module.js';
import { BANK_LINK, createBankLink } from './modules/link/bank-link.wiring.js';
import { LinkItemsHttpController } from './modules/link/http/link-items.http-controller.js';
import { SandboxHttpController } from './modules/link/http/sandbox.http-controller.js';
import { ExecuteLinkItemCommandHandler } from './modules/link/link-items/link-item.commands.js';
import { LinkItemFlows } from './modules/link/link-items/link-item.flows.js';
import { GetLinkItemHandler, ListLinkAccountsHandler, ListLinkItemAlertsHandler, ListLinkItemsHandler } from './modules/link/link-items/link-item.queries.js';
import { BankLinkWebhookReceiver } from './modules/link/webhooks/bank-link-webhook.receiver.js';
import { BankLinkWebhooksHttpController } from './modules/link/webhooks/bank-link-webhooks.http-controller.js';
import { SandboxWebhookFiring } from './modules/link/webhooks/sandbox-webhook.firing.js';
import { QuotesModule } from './modules/quotes/quotes.module.js';
import { AuditModule } from './modules/audit/audit.module.js';
import { BulkApplyTagsHandler } from './modules/tags/bulk-apply-tags.command.js';
import { TagsHttpController } from './modules/tags/http/tags.http-controller.js';
import { CreateTagHandler, DeleteTagHandler, EditTagHandler } from './modules/tags/tag.commands.js';
import { GetTagHandler, ListTagsHandler } from './modules/tags/tag.queries.js';
import { RecurringHttpController } from './modules/insights/recurring/http/recurring.http-controller.js';
import { ListRecurringStreamsHandler } from './modules/insights/recurring/recurring.queries.js';
import { SpendingHttpController } from './modules/insights/spending/http/spending.http-controller.js';
import { GetSpendingHandler } from './modules/insights/spending/spending.queries.js';
import { MeHttpController } from './modules/settings/http/me.http-controller.js';
import { SetUserTimeZoneHandler } from './modules/settings/user-settings.commands.js';
import { GetProfileHandler } from './modules/settings/user-settings.queries.js';
import { TransactionsHttpController } from './modules/transactions/http/transactions.http-controller.js';
import { SplitsHttpController } from './modules/transactions/splits/splits.http-controller.js';
import { TransfersHttpController } from './modules/transactions/transfers/transfers.http-controller.js';
import { ImportsHttpController } from './modules/imports/http/imports.http-controller.js';
import { RulesHttpController } from './modules/rules/http/rules.http-controller.js';
import { ExecuteTransactionCommandHandler } from './modules/transactions/transaction.commands.js';
import { GetTransactionActivityHandler, GetTransactionHandler, ListTransactionsHandler } from './modules/transactions/transaction.queries.js';
import { WebhooksHttpController } from './modules/webhooks/http/webhooks.http-controller.js';
import { WEBHOOK_SECRETS, WebhookSecrets } from './modules/webhooks/webhook-secrets.js';

/** The HTTP application over an already started runtime (see runtime.ts). */
@Module({})
export class AppModule {
  static forRuntime(runtime: Runtime, openApiDocument: { current: unknown }): DynamicModule {
    return {
      module: AppModule,
      imports: [CqrsModule.forRoot(), IdentityModule.forRuntime(runtime), QuotesModule.forRuntime(runtime), AuditModule.forRuntime(runtime)],
      controllers: [HealthHttpController, ServicePagesHttpController, OpenApiHttpController, AccountsHttpController, TransactionsHttpController, TransfersHttpController, SplitsHttpController, TagsHttpController, CategoriesHttpController, LinkItemsHttpController, SandboxHttpController, BankLinkWebhooksHttpController, BrokerageViewsHttpController, BrokerageConnectHttpController, SandboxBrokerageHttpController, MeHttpController, SpendingHttpController, RecurringHttpController, WebhooksHttpController, ImportsHttpController, RulesHttpController],
      providers: [
        { provide: RUNTIME, useValue: runtime },
        { provide: READ_YOUR_WRITES, useValue: runtime.readYourWrites },
        ConsistentCommandBus,
        { provide: OPENAPI_DOCUMENT, useValue: openApiDocument },
        { provide: CONFIG, useValue: runtime.config },
        { provide: LOGGER, useValue: runtime.log },
        { provide: CLOCK, useValue: runtime.clock },
        { provide: DATABASE, useValue: runtime.database.db },
        { provide: EVENT_STORE, useValue: runtime.eventStore },
        { provide: JOBS, useValue: runtime.jobs },
        { provide: APP_FILTER, useValue: new HttpErrorFilter(runtime.log) },
        { provide: APP_PIPE, useClass: DtoValidationPipe },
        { provide: APP_INTERCEPTOR, useFactory: (reflector: Reflector) => new QueryKeysInterceptor(reflector), inject: [Reflector] },
        { provide: APP_INTERCEPTOR, useFactory: (reflector: Reflector) => new IdempotencyInterceptor(runtime.database.pool, reflector, runtime.eventStore.transactionalGuards), inject: [Reflector] },
        ExecuteAccountCommandHandler,
        AccountRemoval,
        ListAccountsHandler,
        GetAccountHandler,
        GetAccountListItemHandler,
        ListBalanceSnapshotsHandler,
        ExecuteTransactionCommandHandler,
        ListTransactionsHandler,
        GetTransactionHandler,
        GetTransactionActivityHandler,
        CreateTagHandler,
        EditTagHandler,
        DeleteTagHandler,
        BulkApplyTagsHandler,
        ListTagsHandler,
        GetTagHandler,
        CategoryDirectory,
        ExecuteCategoryTaxonomyCommandHandler,
        ListCategoriesHandler,
        GetCategoryHandler,
        GetCategoryGroupHandler,
        { provide: BANK_LINK, useFactory: () => createBankLink(runtime.config, runtime.database.db, runtime.clock) },
        LinkItemFlows,
        ExecuteLinkItemCommandHandler,
        ListLinkItemsHandler,
        GetLinkItemHandler,
        ListLinkItemAlertsHandler,
        ListLinkAccountsHandler,
        BankLinkWebhookReceiver,
        { provide: WEBHOOK_SECRETS, useFactory: () => WebhookSecrets.load(runtime.config) },
        SandboxWebhookFiring,
        { provide: BROKERAGE_LINK, useFactory: () => createBrokerageLink(runtime.config, runtime.database.db, runtime.clock) },
        BrokerageConnectFlows,
        BrokerageDisconnectFlows,
        ExecuteBrokerageAuthorizationCommandHandler,
        ListBrokerageAccountsHandler,
        GetBrokerageOverviewHandler,
        ListBrokerageActivitiesHandler,
        ListPortfolioSnapshotsHandler,
        SetUserTimeZoneHandler,
        GetProfileHandler,
        GetSpendingHandler,
        ListRecurringStreamsHandler,
      ],
    };
  }
}
