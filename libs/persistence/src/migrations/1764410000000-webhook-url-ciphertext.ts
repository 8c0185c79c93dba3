import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook URLs that carry credentials (a query, a username or password, a fragment) are kept
 * sealed in `url_ciphertext`, with only their masked form in `url`. Rows saved before keep their
 * URL in `url` and go on working; the next save of the webhook seals them.
 */
export class WebhookUrlCiphertext1764410000000 implements MigrationInterface {
  name = 'WebhookUrlCiphertext1764410000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhooks ADD COLUMN url_ciphertext text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhooks DROP COLUMN url_ciphertext`);
  }
}
