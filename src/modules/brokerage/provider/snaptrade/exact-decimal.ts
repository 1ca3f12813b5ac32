/** A decimal string as an integer and its scale: "12.345" → 12345n, 3. */
function scaled(text: string): { value: bigint; scale: number } {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (match === null) throw new RangeError(`Not a decimal: ${text}`);
  const fraction = match[3] ?? '';
  const magnitude = BigInt(`${match[2]}${fraction}`);
  return { value: match[1] === '-' ? -magnitude : magnitude, scale: fraction.length };
}

/** `units × price` exactly, rounded half away from zero to the cent ("2.5" × "0.333" → "0.83"). */
export function multipliedToCents(units: string, price: string): string {
  const a = scaled(units);
  const b = scaled(price);
  const product = a.value * b.value;
  const scale = a.scale + b.scale;
  let cents: bigint;
  if (scale <= 2) {
    cents = product * 10n ** BigInt(2 - scale);
  } else {
    const divisor = 10n ** BigInt(scale - 2);
    const magnitude = product < 0n ? -product : product;
    const rounded = (magnitude + divisor / 2n) / divisor;
    cents = product < 0n ? -rounded : rounded;
  }
  const negative = cents < 0n;
  const digits = (negative ? -cents : cents).toString().padStart(3, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
