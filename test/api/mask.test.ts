import { describe, expect, it } from 'vitest';
import { maskKey } from '../../src/api/index.js';
import { maskContactDetails, maskEmail, maskPhoneNumber } from '../../src/api/mask.js';

describe('maskKey', () => {
  it('shows only the last 4 characters', () => {
    expect(maskKey('ck_live_4f9a2c7e81d34b6f9e0a5c2d7b1e8f36')).toBe('••••8f36');
  });

  it('does not reveal the key length', () => {
    expect(maskKey('abcdefghijklmnop')).toBe('••••mnop');
    expect(maskKey('abcdefghijklmnopqrstuvwxyz')).toBe('••••wxyz');
  });

  it.each(['', 'abc', 'abcd', 'abcdefgh', 'abcdefghijk'])('fully masks the short key %j', (key) => {
    expect(maskKey(key)).toBe('••••');
  });

  it('never contains the key', () => {
    const key = 'ck_test_0123456789abcdef';
    expect(maskKey(key)).not.toContain(key.slice(0, 5));
  });
});

describe('customer details masked where guests read', () => {
  it('masks a number, keeping its country code and last four digits', () => {
    expect(maskPhoneNumber('+14155550123')).toBe('+1 ••• ••• 0123');
    expect(maskPhoneNumber('(415) 555-0123')).toBe('••• ••• 0123');
    expect(maskPhoneNumber('12345')).toBe('••• •••');
  });

  it('masks a number written in fullwidth digits', () => {
    expect(maskPhoneNumber('＋１４１５５５５０１７７')).toBe('+1 ••• ••• 0177');
    expect(maskContactDetails('call me on ４１５５５５０１７７ today')).toBe('call me on ••• ••• 0177 today');
  });

  it('masks a number spelled out digit by digit with spaces and dashes', () => {
    expect(maskContactDetails('it is 4 1 5 - 5 5 5 - 0 1 7 7, thanks')).toBe('it is ••• ••• 0177, thanks');
    expect(maskContactDetails('+1 (415) 555.0177')).toBe('+1 ••• ••• 0177');
    expect(maskContactDetails('4\u200B1\u200B5\u00A05\u20135\u20145\u200B0177')).toBe('••• ••• 0177');
    expect(maskContactDetails('٤١٥٥٥٥٠١٧٧')).toBe('••• ••• ٠١٧٧');
  });

  it('masks the whole local part of an e-mail, ASCII or not', () => {
    expect(maskEmail('zëd@example.com')).toBe('•••@example.com');
    expect(maskContactDetails('write to zëd@example.com')).toBe('write to •••@example.com');
    expect(maskContactDetails('or Ωmega.ñandú+x@correo.es.')).toBe('or •••@correo.es.');
    expect(maskContactDetails('ｏｌｉｖｉａ＠ｅｘａｍｐｌｅ．ｃｏｍ')).toBe('•••@example.com');
    expect(maskContactDetails('zë\u200Bd@example.com')).toBe('•••@example.com');
    expect(maskEmail('not an address')).toBe('•••');
  });

  it('leaves text without contact details as it was, and short figures alone', () => {
    const text = 'Booked 2 seats for 3pm, order 12345; price $1,250.';
    expect(maskContactDetails(text)).toBe(text);
  });

  it('never leaves a digit of the number but its last four, nor a letter of the local part', () => {
    for (const attack of [
      '４１５５５５０１７７',
      '4 1 5 - 5 5 5 - 0 1 7 7',
      '4-1-5-5-5-5-0-1-7-7',
      '(4)(1)(5)(5)(5)(5)(0)(1)(7)(7)',
      '415 / 555 / 0177',
    ]) {
      const masked = maskContactDetails(`number: ${attack}`);
      expect(masked.replace(/\D/g, ''), attack).toBe('0177');
    }
    expect(maskContactDetails('mail zëd.hüsker@example.com')).not.toMatch(/[zëdhüsker]•/u);
  });
});
