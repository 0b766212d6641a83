import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';

/** A tool's input schema: a JSON Schema object describing its arguments. */
export type JsonSchema = Record<string, unknown>;

/** Checks arguments against a schema; the error lists every problem, one per line, for the model to fix. */
export type ArgsValidator = (args: unknown) => { ok: true } | { ok: false; error: string };

// Servers and users write schemas in draft-07 or 2020-12 and with keywords of their own: compile leniently, and
// never fetch a remote `$ref` (the schema is untrusted input).
const draft07 = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const draft2020 = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

function describe(errors: readonly ErrorObject[]): string {
  return errors
    .slice(0, 20)
    .map((error) => {
      const at = error.instancePath === '' ? 'arguments' : error.instancePath.slice(1).replaceAll('/', '.');
      const extra = error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
      return `- ${at}: ${error.message ?? error.keyword}${extra}`;
    })
    .join('\n');
}

/** Compiles a validator, or throws with the schema's problem (a worker refuses such a tool at start). */
export function compileSchema(schema: JsonSchema): ArgsValidator {
  const uses2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
  const validate: ValidateFunction = (uses2020 ? draft2020 : draft07).compile(schema);
  return (args) => (validate(args) ? { ok: true } : { ok: false, error: describe(validate.errors ?? []) });
}

/** Whether a value is a JSON Schema object a model can be given: an object, with `type: "object"` when typed. */
export function isObjectSchema(value: unknown): value is JsonSchema {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const type = (value as JsonSchema).type;
  return type === undefined || type === 'object';
}
