import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The first schema. Hand-written SQL rather than generated from the entities, so that what runs in
 * production is reviewable and never changes once released: later changes get new migrations.
 *
 * - ids are uuids made by the database (`gen_random_uuid()`, built in since PostgreSQL 13);
 * - every time is `timestamptz`, so the server's time zone never shifts a value;
 * - tenant tables cascade from `accounts`, so deleting an account leaves nothing behind.
 */
export class InitialSchema1700000000000 implements MigrationInterface {
  name = 'InitialSchema1700000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE plans (
        id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
        name             text        NOT NULL CONSTRAINT plans_name_key UNIQUE,
        monthly_api_hits bigint      NOT NULL CHECK (monthly_api_hits >= 0),
        max_sessions     integer     NOT NULL CHECK (max_sessions >= 0),
        created_at       timestamptz NOT NULL DEFAULT now()
      )`);

    await queryRunner.query(`
      CREATE TABLE accounts (
        id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
        name       text        NOT NULL,
        plan_id    uuid        NOT NULL REFERENCES plans (id) ON DELETE RESTRICT,
        suspended  boolean     NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX accounts_plan_id_idx ON accounts (plan_id)`);

    await queryRunner.query(`
      CREATE TABLE api_keys (
        id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        name       text        NULL,
        scope      text        NOT NULL CHECK (scope IN ('full', 'read')),
        prefix     text        NOT NULL,
        key_hash   text        NOT NULL CONSTRAINT api_keys_key_hash_key UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX api_keys_account_id_idx ON api_keys (account_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE usage_counters (
        account_id    uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        period_start  date        NOT NULL,
        api_hits      bigint      NOT NULL DEFAULT 0 CHECK (api_hits >= 0),
        messages_sent bigint      NOT NULL DEFAULT 0 CHECK (messages_sent >= 0),
        send_failures bigint      NOT NULL DEFAULT 0 CHECK (send_failures >= 0),
        updated_at    timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, period_start)
      )`);

    await queryRunner.query(`
      CREATE TABLE sessions (
        account_id   uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        session_id   text        NOT NULL,
        shard        smallint    NOT NULL CHECK (shard >= 0),
        state        text        NOT NULL,
        phone_number text        NULL,
        reason       text        NULL,
        owner_token  bigint      NOT NULL DEFAULT 0,
        created_at   timestamptz NOT NULL DEFAULT now(),
        updated_at   timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, session_id)
      )`);
    // A worker that takes over a shard restores that shard's active sessions.
    await queryRunner.query(
      `CREATE INDEX sessions_shard_idx ON sessions (shard) WHERE state <> 'disconnected'`,
    );
    // One WhatsApp number is connected to at most one session, across all accounts
    // (ARCHITECTURE.md invariant): the database enforces it, whatever the workers race to do.
    await queryRunner.query(`
      CREATE UNIQUE INDEX sessions_connected_phone_number_key ON sessions (phone_number)
        WHERE state IN ('connecting', 'connected') AND phone_number IS NOT NULL`);

    await queryRunner.query(`
      CREATE TABLE network_credentials (
        account_id uuid        NOT NULL,
        session_id text        NOT NULL,
        kind       text        NOT NULL,
        key_id     text        NOT NULL,
        value      bytea       NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, session_id, kind, key_id),
        FOREIGN KEY (account_id, session_id) REFERENCES sessions (account_id, session_id) ON DELETE CASCADE
      )`);

    await queryRunner.query(`
      CREATE TABLE send_failures (
        id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        session_id text        NOT NULL,
        to_address text        NOT NULL,
        type       text        NOT NULL,
        code       text        NOT NULL,
        message    text        NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX send_failures_account_created_idx ON send_failures (account_id, created_at DESC)`,
    );

    await queryRunner.query(`
      CREATE TABLE idempotency_records (
        account_id   uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        key          text        NOT NULL,
        request_hash text        NOT NULL,
        status_code  integer     NOT NULL,
        response     jsonb       NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, key)
      )`);
    // Records expire after 24 h; the sweep deletes by age.
    await queryRunner.query(
      `CREATE INDEX idempotency_records_created_at_idx ON idempotency_records (created_at)`,
    );

    await queryRunner.query(`
      CREATE TABLE webhooks (
        account_id        uuid        PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
        url               text        NOT NULL,
        enabled           boolean     NOT NULL,
        secret_ciphertext text        NULL,
        updated_at        timestamptz NOT NULL DEFAULT now()
      )`);

    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id   uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        event_id     text        NULL,
        event        text        NOT NULL,
        session_id   text        NOT NULL,
        url          text        NOT NULL,
        status       text        NOT NULL CHECK (status IN ('success', 'failed')),
        status_code  integer     NULL,
        error        text        NULL,
        response     text        NULL,
        duration_ms  integer     NOT NULL,
        payload      jsonb       NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        attempted_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_account_attempted_idx ON webhook_deliveries (account_id, attempted_at DESC)`,
    );
    // A dispatcher that re-sends an event another one was delivering records it once.
    await queryRunner.query(
      `CREATE UNIQUE INDEX webhook_deliveries_event_id_key ON webhook_deliveries (event_id) WHERE event_id IS NOT NULL`,
    );

    // The all-in-one mode's durable event log (production uses JetStream): inbound events wait
    // here, written before the network is acknowledged, until a delivery has been recorded.
    await queryRunner.query(`
      CREATE TABLE inbound_events (
        event_id   text        PRIMARY KEY,
        shard      smallint    NOT NULL,
        subject    text        NOT NULL,
        payload    jsonb       NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX inbound_events_shard_created_idx ON inbound_events (shard, created_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Children before parents, so no drop depends on CASCADE.
    for (const table of [
      'inbound_events',
      'webhook_deliveries',
      'webhooks',
      'idempotency_records',
      'send_failures',
      'network_credentials',
      'sessions',
      'usage_counters',
      'api_keys',
      'accounts',
      'plans',
    ]) {
      await queryRunner.query(`DROP TABLE ${table}`);
    }
  }
}
