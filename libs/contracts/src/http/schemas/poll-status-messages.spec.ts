import { parseInput } from '../validation';
import { sendPollSchema, sendStatusSchema } from './poll-status-messages';

const PHONE = '254712345678';
const poll = { to: PHONE, question: 'Lunch?', options: ['Ugali', 'Pilau'] };

/** The paths of the fields a body is refused for. */
function refusedAt(schema: typeof sendPollSchema | typeof sendStatusSchema, body: unknown): string[] {
  try {
    parseInput(schema, body);
  } catch (error) {
    return ((error as { details: { path: string }[] }).details ?? []).map((detail) => detail.path);
  }
  return [];
}

describe('a poll', () => {
  it('is single choice unless asked otherwise', () => {
    expect(parseInput(sendPollSchema, poll).multipleChoice).toBeUndefined();
    expect(parseInput(sendPollSchema, { ...poll, multipleChoice: true }).multipleChoice).toBe(true);
  });

  it('takes 2 to 12 options', () => {
    const options = (count: number) => Array.from({ length: count }, (_, index) => `option ${index}`);
    expect(refusedAt(sendPollSchema, { ...poll, options: options(1) })).toEqual(['/options']);
    expect(refusedAt(sendPollSchema, { ...poll, options: options(2) })).toEqual([]);
    expect(refusedAt(sendPollSchema, { ...poll, options: options(12) })).toEqual([]);
    expect(refusedAt(sendPollSchema, { ...poll, options: options(13) })).toEqual(['/options']);
  });

  it('refuses repeated and empty options, an empty question and unknown fields', () => {
    expect(refusedAt(sendPollSchema, { ...poll, options: ['Ugali', 'Ugali'] })).toEqual(['/options']);
    expect(refusedAt(sendPollSchema, { ...poll, options: ['Ugali', ''] })).toEqual(['/options/1']);
    expect(refusedAt(sendPollSchema, { ...poll, question: '' })).toEqual(['/question']);
    expect(refusedAt(sendPollSchema, { ...poll, selectableCount: 2 })).toHaveLength(1);
    expect(refusedAt(sendPollSchema, { ...poll, to: '+254 712' })).toEqual(['/to']);
  });
});

describe('a status', () => {
  const contacts = [PHONE, '254700000001'];

  it('is a text status by default, and needs its text', () => {
    expect(parseInput(sendStatusSchema, { text: 'Open', contacts }).type).toBe('text');
    expect(refusedAt(sendStatusSchema, { contacts })).toEqual(['/text']);
    expect(
      refusedAt(sendStatusSchema, { text: 'Open', url: 'https://cdn.example.test/a.jpg', contacts }),
    ).toEqual(['/url']);
  });

  it('needs a URL for an image or video, and no text', () => {
    const image = { type: 'image', url: 'https://cdn.example.test/a.jpg', caption: 'New stock', contacts };
    expect(refusedAt(sendStatusSchema, image)).toEqual([]);
    expect(refusedAt(sendStatusSchema, { ...image, url: undefined })).toEqual(['/url']);
    expect(refusedAt(sendStatusSchema, { ...image, text: 'x' })).toEqual(['/text']);
    expect(refusedAt(sendStatusSchema, { ...image, backgroundColor: '#000000' })).toEqual([
      '/backgroundColor',
    ]);
    expect(refusedAt(sendStatusSchema, { ...image, url: 'ftp://cdn.example.test/a.jpg' })).toEqual(['/url']);
  });

  it('checks colour, font and the contacts it goes to', () => {
    expect(refusedAt(sendStatusSchema, { text: 'a', backgroundColor: 'blue', contacts })).toEqual([
      '/backgroundColor',
    ]);
    expect(refusedAt(sendStatusSchema, { text: 'a', font: 10, contacts })).toEqual(['/font']);
    expect(refusedAt(sendStatusSchema, { text: 'a' })).toEqual(['/contacts']);
    expect(refusedAt(sendStatusSchema, { text: 'a', contacts: [] })).toEqual(['/contacts']);
    expect(refusedAt(sendStatusSchema, { text: 'a', contacts: [PHONE, PHONE] })).toEqual(['/contacts']);
    expect(refusedAt(sendStatusSchema, { text: 'a', contacts: ['12'] })).toEqual(['/contacts/0']);
    expect(refusedAt(sendStatusSchema, { text: 'a', contacts, to: PHONE })).toHaveLength(1);
  });
});
