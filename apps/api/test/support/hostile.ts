import fc from 'fast-check';

/**
 * Generators of hostile input for the fuzz suite: values a careless or malicious client sends —
 * NUL, lone surrogates, huge and fractional numbers, wrong types, forged cursors, over-long text —
 * mixed with values that follow the schema, so requests get past validation and reach SQL.
 */

/** A JSON Schema 2020-12 schema as the committed OpenAPI 3.1 document spells a request (inline, no $ref). */
export interface JsonSchema {
  /** A type, or a type and `null` (`["string", "null"]`). */
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  default?: unknown;
}

const SPECIAL_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ud83d\ude00',
  '\uFFFF\uFFFE',
  '\u202Eevil\u202C',
  '\u200B',
  '%00',
  '%',
  '%ZZ',
  '../../etc/passwd',
  "' OR '1'='1",
  '"; DROP TABLE sessions; --',
  '\\',
  '*',
  '_',
  'NaN',
  'null',
  'true',
  '-1',
  '0',
  '1.5',
  '1e308',
  '99999999999999999999',
  '9007199254740993',
  '会议 東京',
  'agent:alpha:telegram:dm:42',
  '"unbalanced',
  'a OR NOT -b "c d" e*',
  'x'.repeat(129),
  'y'.repeat(3000),
];

const SPECIAL_NUMBERS = [
  0,
  -0,
  -1,
  1,
  1.5,
  -1.5,
  0.1,
  1e-320,
  1e9,
  1e9 + 1,
  2 ** 31,
  2 ** 31 + 1,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53 + 2,
  2 ** 63,
  2 ** 64,
  1e300,
  1e308,
  -1e308,
  Number.MAX_VALUE,
];

export const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);

export const hostileNumber = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_NUMBERS) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);

/** Any JSON value at all (a wrong type where the schema wants another). */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(hostileString, tie('value'), { maxKeys: 3 }),
  ),
})).value;

const cursorOf = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');

/**
 * A keyset cursor holding whatever an attacker chose. The server's own are base64url JSON arrays
 * of (number, text) for sessions, (text, text) for routes, (tag, rank, id) for search and (id) for
 * messages: forged ones mostly keep those shapes, with hostile parts, so they pass the outer checks.
 */
export const forgedCursor = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(hostileNumber, hostileString).map(cursorOf) },
  { weight: 4, arbitrary: fc.tuple(hostileString, hostileString).map(cursorOf) },
  {
    weight: 4,
    arbitrary: fc.tuple(fc.oneof(fc.constantFrom('w', 's'), hostileString), hostileNumber, hostileNumber).map(cursorOf),
  },
  { weight: 2, arbitrary: fc.tuple(hostileNumber).map(cursorOf) },
  { weight: 1, arbitrary: fc.array(hostileJson, { maxLength: 4 }).map(cursorOf) },
  { weight: 1, arbitrary: fc.constantFrom('AAAA', 'e30', 'bnVsbA', '', '-_-_', 'W10', 'WzEsMl0') },
  { weight: 1, arbitrary: hostileString },
);

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.enum) return fc.constantFrom(...(schema.enum.filter((value) => typeof value === 'string') as string[]));
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).map((value) => value.slice(0, schema.maxLength ?? 256));
    } catch {
      // a pattern fast-check cannot generate from: plain text instead
    }
  }
  return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
}

function numberFor(schema: JsonSchema, integer: boolean, edges: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? 0;
  const max = schema.maximum ?? 1_000;
  const inside = integer
    ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  if (!edges) return inside;
  // The edges and just past them, where bounds and overflow bugs live.
  const values = [min, max, max + 1, min - 1].filter((value) => Number.isFinite(value));
  return fc.oneof({ weight: 3, arbitrary: inside }, { weight: 1, arbitrary: fc.constantFrom(...values) });
}

/**
 * A value for `schema`: mostly one that follows it (so the request reaches the service and SQL),
 * often one whose leaves are hostile (edges, huge and fractional numbers, NUL, wrong types), and
 * now and then a value of the wrong type altogether.
 */
export function valueFor(schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  if (!schema) return hostileJson;
  return fc.oneof(
    { weight: 5, arbitrary: shapedValueFor(schema, 0, false) },
    { weight: 4, arbitrary: shapedValueFor(schema, 0, true) },
    { weight: 1, arbitrary: hostileJson },
  );
}

/** A value that follows `schema` (as far as a JSON schema says). */
export const conformingValueFor = (schema: JsonSchema) => shapedValueFor(schema, 0, false);

/** `hostile`: leaves are sometimes hostile values; otherwise every leaf follows the schema. */
function shapedValueFor(schema: JsonSchema, depth: number, hostile: boolean): fc.Arbitrary<unknown> {
  if (depth > 4) return hostile ? hostileJson : fc.constant(null);
  const leaf = (conforming: fc.Arbitrary<unknown>, wild: fc.Arbitrary<unknown>) =>
    hostile ? fc.oneof({ weight: 3, arbitrary: conforming }, { weight: 1, arbitrary: wild }) : conforming;
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((option) => shapedValueFor(option, depth + 1, hostile)));
  if (schema.const !== undefined) return leaf(fc.constant(schema.const), hostileString);
  if (schema.enum) return leaf(fc.constantFrom(...schema.enum), hostileString);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const nullable = (arbitrary: fc.Arbitrary<unknown>) =>
    types.includes('null') ? fc.oneof(arbitrary, fc.constant(null)) : arbitrary;
  switch (types.find((type) => type !== 'null')) {
    case 'string':
      return nullable(leaf(stringFor(schema), hostileString));
    case 'integer':
      return nullable(leaf(numberFor(schema, true, hostile), hostileNumber));
    case 'number':
      return nullable(leaf(numberFor(schema, false, hostile), hostileNumber));
    case 'boolean':
      return nullable(leaf(fc.boolean(), hostileJson));
    case 'array':
      return nullable(
        fc.array(schema.items ? shapedValueFor(schema.items, depth + 1, hostile) : hostileJson, {
          minLength: Math.min(schema.minItems ?? 0, 3),
          maxLength: Math.min(schema.maxItems ?? 3, 3),
        }),
      );
    case 'object': {
      const properties = Object.entries(schema.properties ?? {});
      if (properties.length === 0) {
        return nullable(fc.dictionary(fc.string({ maxLength: 8 }), hostileJson, { maxKeys: 3 }));
      }
      const required = new Set(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of properties) record[name] = shapedValueFor(property, depth + 1, hostile);
      const shapedObject = fc.record(record, {
        requiredKeys: properties.map(([name]) => name).filter((name) => required.has(name)),
      });
      if (!hostile) return nullable(shapedObject);
      // Now and then an extra member the schema does not allow.
      return nullable(
        fc.oneof(
          { weight: 5, arbitrary: shapedObject },
          {
            weight: 1,
            arbitrary: fc
              .tuple(shapedObject, hostileString, hostileJson)
              .map(([value, key, extra]) => ({ ...(value as object), [key]: extra })),
          },
        ),
      );
    }
    default:
      return hostileJson;
  }
}

/** A header value fetch can send (Latin-1, no CR/LF/NUL) but hostile in meaning. */
export const hostileHeaderValue = fc.oneof(
  fc.constantFrom(
    '',
    '"1"',
    'W/"1"',
    '"-1"',
    '1',
    '0',
    '-1',
    '1.5',
    '1e308',
    '99999999999999999999',
    '9007199254740993',
    '"99999999999999999999"',
    '*',
    'x'.repeat(300),
    'caf\u00e9',
    '\u00ff\u00fe',
    ' 1 ',
    ',',
  ),
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0xfe }).map((code) => String.fromCharCode(code === 0x7f ? 0xff : code)),
    maxLength: 30,
  }),
);
