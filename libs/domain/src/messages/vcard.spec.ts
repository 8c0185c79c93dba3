import { contactVcard } from './vcard';

describe('contactVcard', () => {
  it('gives WhatsApp the name, a tel and the waid of the number', () => {
    expect(contactVcard('Amina Njeri', '254712345678')).toBe(
      'BEGIN:VCARD\nVERSION:3.0\nFN:Amina Njeri\nTEL;type=CELL;type=VOICE;waid=254712345678:+254712345678\nEND:VCARD',
    );
  });

  it('escapes what would otherwise break the card (commas, semicolons, backslashes, newlines)', () => {
    expect(contactVcard('Shop; Ltd, \\Dept\nB', '254700000001')).toContain(
      'FN:Shop\\; Ltd\\, \\\\Dept\\nB\n',
    );
  });
});
