import { useState } from 'preact/hooks';
import { call, type Credential } from '../api';
import { Outcome, Panel, useAction } from '../ui';
import type { SentLog } from './sent-log';

type Kind = 'text' | 'buttons' | 'media' | 'location' | 'contact';
type MediaType = 'image' | 'video' | 'audio' | 'document' | 'sticker';

const KINDS: Array<[Kind, string]> = [
  ['text', 'Text'],
  ['buttons', 'Reply buttons'],
  ['media', 'Media (image, video, audio, document, sticker)'],
  ['location', 'Location'],
  ['contact', 'Contact card'],
];

interface Sent {
  key: { id: string; remoteJid: string };
}

/** Sends a test message of any kind the API has (README, "Message kinds") from the picked session. */
export function SendPanel(props: { credential: Credential; sessionId: string; sent: SentLog }) {
  const { credential, sessionId } = props;
  const [to, setTo] = useState('');
  const [kind, setKind] = useState<Kind>('text');
  const [text, setText] = useState('Habari from the Jumbe dashboard');
  const [buttons, setButtons] = useState('Yes, No');
  const [mediaType, setMediaType] = useState<MediaType>('image');
  const [url, setUrl] = useState('');
  const [fileName, setFileName] = useState('');
  const [ptt, setPtt] = useState(false);
  const [latitude, setLatitude] = useState('-1.2921');
  const [longitude, setLongitude] = useState('36.8219');
  const [place, setPlace] = useState('');
  const [contactName, setContactName] = useState('');
  const [contactPhone, setContactPhone] = useState('');
  const send = useAction();

  /** The route and body of the chosen kind; what the chat view shows of it. */
  const request = (): { path: string; body: Record<string, unknown>; shown: string } => {
    const base = { sessionId, to: to.trim() };
    switch (kind) {
      case 'text':
        return { path: '/messages/text', body: { ...base, text }, shown: text };
      case 'buttons':
        return {
          path: '/messages/interactive',
          body: {
            ...base,
            text,
            actions: buttons
              .split(',')
              .map((label) => label.trim())
              .filter(Boolean)
              .map((label, index) => ({ type: 'reply', id: `b${index + 1}`, label })),
          },
          shown: `${text} [${buttons}]`,
        };
      case 'media':
        return {
          path: '/messages/media',
          body: {
            ...base,
            url: url.trim(),
            type: mediaType,
            ...(text.trim() && mediaType !== 'sticker' && mediaType !== 'audio' ? { caption: text } : {}),
            ...(fileName.trim() && mediaType === 'document' ? { fileName: fileName.trim() } : {}),
            ...(ptt && mediaType === 'audio' ? { ptt: true } : {}),
          },
          shown: `[${mediaType}] ${mediaType === 'sticker' || mediaType === 'audio' ? '' : text}`.trim(),
        };
      case 'location':
        return {
          path: '/messages/location',
          body: {
            ...base,
            latitude: Number(latitude),
            longitude: Number(longitude),
            ...(place.trim() ? { name: place.trim() } : {}),
          },
          shown: `[location] ${place || `${latitude}, ${longitude}`}`,
        };
      case 'contact':
        return {
          path: '/messages/contact',
          body: { ...base, contacts: [{ name: contactName.trim(), phoneNumber: contactPhone.trim() }] },
          shown: `[contact] ${contactName}`,
        };
    }
  };

  const submit = (event: Event) => {
    event.preventDefault();
    void send.run(async () => {
      const { path, body, shown } = request();
      const result = await call<Sent>(credential, 'POST', path, body);
      props.sent.add({
        sessionId,
        chat: result.data.key.remoteJid,
        id: result.data.key.id,
        text: shown,
        at: Date.now(),
      });
      return `${result.message ?? 'Sent'} (message id ${result.data.key.id})`;
    });
  };

  const captioned = kind === 'media' && mediaType !== 'sticker' && mediaType !== 'audio';
  return (
    <Panel title={`Send a test message from ${sessionId}`}>
      <form class="stack" onSubmit={submit}>
        <label for="send-to">To (phone number)</label>
        <input
          id="send-to"
          inputMode="tel"
          required
          placeholder="2547…"
          value={to}
          onInput={(e) => setTo(e.currentTarget.value)}
        />
        <label for="send-kind">Kind</label>
        <select id="send-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
          {KINDS.map(([id, label]) => (
            <option key={id} value={id}>
              {label}
            </option>
          ))}
        </select>
        {kind === 'media' && (
          <>
            <label for="send-media-type">Media type</label>
            <select
              id="send-media-type"
              value={mediaType}
              onChange={(e) => setMediaType(e.currentTarget.value as MediaType)}
            >
              <option value="image">image</option>
              <option value="video">video</option>
              <option value="audio">audio</option>
              <option value="document">document</option>
              <option value="sticker">sticker (WebP)</option>
            </select>
            <label for="send-url">File URL (public http or https)</label>
            <input
              id="send-url"
              type="url"
              required
              placeholder="https://cdn.example.com/receipt.jpg"
              value={url}
              onInput={(e) => setUrl(e.currentTarget.value)}
            />
            {mediaType === 'document' && (
              <>
                <label for="send-file-name">File name</label>
                <input
                  id="send-file-name"
                  value={fileName}
                  onInput={(e) => setFileName(e.currentTarget.value)}
                />
              </>
            )}
            {mediaType === 'audio' && (
              <label class="inline">
                <input type="checkbox" checked={ptt} onChange={(e) => setPtt(e.currentTarget.checked)} />{' '}
                Voice note (plays inline)
              </label>
            )}
          </>
        )}
        {(kind === 'text' || kind === 'buttons' || captioned) && (
          <>
            <label for="send-text">{captioned ? 'Caption' : 'Text'}</label>
            <textarea
              id="send-text"
              required={!captioned}
              rows={3}
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          </>
        )}
        {kind === 'buttons' && (
          <>
            <label for="send-buttons">Button labels (comma-separated, up to 3)</label>
            <input id="send-buttons" value={buttons} onInput={(e) => setButtons(e.currentTarget.value)} />
          </>
        )}
        {kind === 'location' && (
          <>
            <label for="send-latitude">Latitude (−90 to 90)</label>
            <input
              id="send-latitude"
              inputMode="decimal"
              required
              value={latitude}
              onInput={(e) => setLatitude(e.currentTarget.value)}
            />
            <label for="send-longitude">Longitude (−180 to 180)</label>
            <input
              id="send-longitude"
              inputMode="decimal"
              required
              value={longitude}
              onInput={(e) => setLongitude(e.currentTarget.value)}
            />
            <label for="send-place">Place name</label>
            <input id="send-place" value={place} onInput={(e) => setPlace(e.currentTarget.value)} />
          </>
        )}
        {kind === 'contact' && (
          <>
            <label for="send-contact-name">Contact's name</label>
            <input
              id="send-contact-name"
              required
              value={contactName}
              onInput={(e) => setContactName(e.currentTarget.value)}
            />
            <label for="send-contact-phone">Contact's phone number</label>
            <input
              id="send-contact-phone"
              inputMode="tel"
              required
              value={contactPhone}
              onInput={(e) => setContactPhone(e.currentTarget.value)}
            />
          </>
        )}
        <button type="submit" disabled={send.busy}>
          Send message
        </button>
      </form>
      <Outcome outcome={send.outcome} />
    </Panel>
  );
}
