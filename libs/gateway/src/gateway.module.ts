import { HealthModule } from '@jumbe/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import { AdminModule } from './admin/admin.module';
import { CallsModule } from './calls/calls.module';
import { ChatsModule } from './chats/chats.module';
import { ContactsModule } from './contacts/contacts.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { EventsModule } from './events/events.module';
import { GatewayAccessModule } from './gateway-access.module';
import { GroupsModule } from './groups/groups.module';
import { KeysModule } from './keys/keys.module';
import { MessagesModule } from './messages/messages.module';
import { DocsModule } from './openapi/docs.module';
import type { GatewayPorts } from './ports/gateway-ports';
import { GatewayPortsModule } from './ports/gateway-ports.module';
import { ProfilesModule } from './profiles/profiles.module';
import { SandboxModule } from './sandbox/sandbox.module';
import { SessionsModule } from './sessions/sessions.module';
import { StatusModule } from './status/status.module';
import { UsageModule } from './usage/usage.module';
import { WebhookModule } from './webhook/webhook.module';

/**
 * The stateless HTTP gateway: auth, quotas, validation, and routing commands to workers. Each
 * feature is its own module; the ports the composition root bound and the access services are
 * global, so a feature's services take what they use from them.
 */
@Module({})
export class GatewayModule {
  static register(ports: GatewayPorts): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        GatewayPortsModule.register(ports),
        GatewayAccessModule,
        HealthModule.register(ports.health),
        StatusModule,
        DocsModule,
        UsageModule,
        SessionsModule,
        MessagesModule,
        ChatsModule,
        GroupsModule,
        ContactsModule,
        ProfilesModule,
        CallsModule,
        WebhookModule,
        KeysModule,
        EventsModule,
        DashboardModule,
        // The sandbox's control routes exist only when the sandbox network is selected (CONTRACT §9).
        ...(ports.config.network === 'sandbox' ? [SandboxModule] : []),
        AdminModule,
      ],
      exports: [GatewayPortsModule, GatewayAccessModule],
    };
  }
}
