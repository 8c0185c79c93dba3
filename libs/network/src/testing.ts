// Test support for libraries that drive the WhatsApp driver (the session worker's tests): a fake
// Baileys socket shaped exactly like the library's, at the outer edge only. Never for services.
export { FakeBaileysSocket, FakeWhatsApp } from './whatsapp/test-support/fake-baileys';
export { MemorySentMessageStore } from './whatsapp/test-support/memory-sent-message-store';
