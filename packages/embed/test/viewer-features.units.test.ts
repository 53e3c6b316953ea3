import { describe, expect, it } from 'vitest';
import { quickLookUrl } from '../src/features/ar-options.js';
import { defaultUnits, formatLength } from '../src/features/dimensions.js';

describe('dimension labels', () => {
  it('follow the locale when the shop set no units: imperial for en-US only', () => {
    expect(defaultUnits('en-US')).toBe('imperial');
    expect(defaultUnits('en_us')).toBe('imperial');
    expect(defaultUnits('en-GB')).toBe('metric');
    expect(defaultUnits('fr-FR')).toBe('metric');
  });

  it('read in centimetres or metres, inches or feet and inches', () => {
    expect(formatLength(0.5, 'metric')).toBe('50.0 cm');
    expect(formatLength(1.234, 'metric')).toBe('1.23 m');
    expect(formatLength(0.5, 'imperial')).toBe('19.7 in');
    expect(formatLength(1.8, 'imperial')).toBe('5 ft 11 in');
    // 71.9 in rounds to 6 ft, never "5 ft 12 in".
    expect(formatLength(1.826, 'imperial')).toBe('6 ft 0 in');
  });
});

describe('the Quick Look URL', () => {
  const cta = { title: 'Oak chair & stool', button_label: 'Buy now', url: 'https://shop.example/c' };
  it('carries the call to action in its fragment, encoded, without the fields the shop left out', () => {
    expect(quickLookUrl('https://cdn.example/a.usdz', cta)).toBe('https://cdn.example/a.usdz#callToAction=Buy%20now&checkoutTitle=Oak%20chair%20%26%20stool');
    expect(quickLookUrl('https://cdn.example/a.usdz#old', { ...cta, subtitle: 'Free delivery', price: '$129' })).toBe(
      'https://cdn.example/a.usdz#callToAction=Buy%20now&checkoutTitle=Oak%20chair%20%26%20stool&checkoutSubtitle=Free%20delivery&price=%24129',
    );
  });
  it('is the plain USDZ without a call to action, and nothing without a USDZ', () => {
    expect(quickLookUrl('https://cdn.example/a.usdz', null)).toBe('https://cdn.example/a.usdz');
    expect(quickLookUrl(null, cta)).toBeNull();
  });
});
