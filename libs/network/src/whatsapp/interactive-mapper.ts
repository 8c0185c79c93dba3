import type { InteractiveAction } from '@jumbe/contracts';
import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import type { OutboundInteractive } from '../outbound-message';

/** The native-flow button name WhatsApp renders for each contract action type. */
export const NATIVE_FLOW_BUTTON: Record<InteractiveAction['type'], string> = {
  reply: 'quick_reply',
  url: 'cta_url',
  copy: 'cta_copy',
  call: 'cta_call',
  list: 'single_select',
  catalog: 'cta_catalog',
  location_request: 'send_location',
};

/**
 * The message content of an interactive send: one `interactiveMessage` carrying a native-flow
 * message with one button per action (Baileys 7 has no send for these; the driver relays this
 * content itself). Pure, so every action type can be checked against the proto it becomes.
 */
export function buildInteractiveContent(message: OutboundInteractive): proto.IMessage {
  const interactiveMessage: proto.Message.IInteractiveMessage = {
    body: { text: message.text },
    nativeFlowMessage: {
      buttons: message.actions.map(toButton),
      messageParamsJson: '',
      messageVersion: 1,
    },
  };
  if (message.title) interactiveMessage.header = { title: message.title, hasMediaAttachment: false };
  if (message.footer) interactiveMessage.footer = { text: message.footer };
  return {
    // What WhatsApp's own clients attach to messages that fan out to a contact's devices.
    messageContextInfo: { deviceListMetadata: {}, deviceListMetadataVersion: 2 },
    interactiveMessage,
  };
}

function toButton(
  action: InteractiveAction,
): proto.Message.InteractiveMessage.NativeFlowMessage.INativeFlowButton {
  return { name: NATIVE_FLOW_BUTTON[action.type], buttonParamsJson: JSON.stringify(paramsOf(action)) };
}

function paramsOf(action: InteractiveAction): Record<string, unknown> {
  switch (action.type) {
    case 'reply':
      return { display_text: action.label, id: action.id };
    case 'url':
      return { display_text: action.label, url: action.url, merchant_url: action.merchantUrl ?? action.url };
    case 'copy':
      return { display_text: action.label, id: action.value, copy_code: action.value };
    case 'call':
      return { display_text: action.label, phone_number: `+${action.phoneNumber}` };
    case 'list':
      return {
        title: action.label,
        sections: action.sections.map((section) => ({
          title: section.title,
          highlight_label: '',
          rows: section.rows.map((row) => ({
            header: '',
            title: row.title,
            description: row.description ?? '',
            id: row.id,
          })),
        })),
      };
    case 'catalog':
      return {
        business_phone_number: action.businessPhoneNumber,
        ...(action.label ? { display_text: action.label } : {}),
      };
    case 'location_request':
      return { display_text: action.label };
  }
}

/**
 * Offset WhatsApp's clients subtract from the current time for `privacy_mode_ts` on `<biz>`
 * (as observed on the wire by other WhatsApp client implementations).
 */
export const PRIVACY_MODE_TS_OFFSET_S = 77_980_457;

/**
 * The stanza nodes that make WhatsApp deliver a native-flow message as a business message: without
 * `<biz>` the server accepts the message and no recipient ever sees it. Every button type goes out
 * under the `mixed` native-flow name, the one shape observed to render for all of them (named
 * shapes such as `cta_url` have been refused by the server); direct chats also carry
 * `<bot biz_bot="1"/>`, group messages do not.
 */
/** Whether a sent message is one of ours that needs nativeFlowStanzaNodes (an interactive message). */
export function carriesNativeFlow(message: proto.IMessage): boolean {
  return Boolean(message.interactiveMessage?.nativeFlowMessage);
}

export function nativeFlowStanzaNodes(to: string, nowMs: number): BinaryNode[] {
  const biz: BinaryNode = {
    tag: 'biz',
    attrs: {
      actual_actors: '2',
      host_storage: '2',
      privacy_mode_ts: String(Math.max(0, Math.floor(nowMs / 1000) - PRIVACY_MODE_TS_OFFSET_S)),
    },
    content: [
      {
        tag: 'interactive',
        attrs: { type: 'native_flow', v: '1' },
        content: [{ tag: 'native_flow', attrs: { v: '9', name: 'mixed' } }],
      },
      { tag: 'quality_control', attrs: { source_type: 'third_party' } },
    ],
  };
  return to.endsWith('@g.us') ? [biz] : [{ tag: 'bot', attrs: { biz_bot: '1' } }, biz];
}
