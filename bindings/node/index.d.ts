// Types of the `toolschema` package (index.js).

/** A JSON Schema: an object, a boolean, or its JSON text. */
export type JsonSchema = Record<string, unknown> | boolean | string

export type Dialect = '2020-12' | '2019-09' | 'draft-07' | 'draft-06' | 'draft-04'

export interface CompileOptions {
  /** The dialect of a schema that declares no `$schema` (default "2020-12"). */
  dialect?: Dialect
  /** Whether `format` asserts (default false; `ToolschemaJsonSchemaValidator` defaults to true). */
  formats?: boolean
  /** Whether `contentEncoding`/`contentMediaType`/`contentSchema` assert (default false). */
  content?: boolean
  /** Only `#...` references: no other documents (default false). */
  fragmentOnlyRefs?: boolean
  /** Check the schema against its dialect's meta-schema first (default false). */
  validateSchema?: boolean
  /** The cap on schema nesting. */
  maxDepth?: number
  /** The cap on the number of subschemas. */
  maxSubschemas?: number
  /** Other documents references may reach, by URI (e.g. `{ "https://example.com/a.json": {...} }`). */
  documents?: Record<string, JsonSchema>
}

/** One error: where and why. The message never quotes the instance. */
export interface OutputUnit {
  /** A JSON Pointer into the instance ("" for the root). */
  instanceLocation: string
  /** The path of keywords that failed. */
  keywordLocation: string
  message: string
}

export interface ValidationResult {
  valid: boolean
  errors: OutputUnit[]
}

export type OutputFormat = 'flag' | 'basic' | 'detailed' | 'verbose'

/** A compiled schema. */
export declare class Validator {
  private constructor()
  /** The schema it was compiled from. */
  readonly schema: JsonSchema
  /**
   * Whether `value` conforms. The value is read as JSON.stringify would send it (`toJSON`
   * called, `undefined` members skipped, `BigInt` as an integer); functions, symbols,
   * cycles and nesting deeper than 127 levels throw a `TypeError`-like `Error`.
   */
  isValid(value: unknown): boolean
  /** Whether the JSON text conforms (the text never becomes JavaScript objects). Throws on malformed JSON. */
  isValidJson(text: string): boolean
  /** Every error of `value`. */
  validate(value: unknown): ValidationResult
  /** Every error of the JSON text. */
  validateJson(text: string): ValidationResult
  /** The standard output format of `value` (default "basic"). */
  evaluate(value: unknown, format?: OutputFormat): Record<string, unknown>
  /** The standard output format of the JSON text. */
  evaluateJson(text: string, format?: OutputFormat): Record<string, unknown>
}

/** Compiles a schema; throws `SchemaError` when it does not compile. */
export declare function compile(schema: JsonSchema, options?: CompileOptions): Validator

/** A schema that does not compile. */
export declare class SchemaError extends Error {
  /** A JSON Pointer into the schema ("" for the root). */
  readonly keywordLocation: string
  /** Why, in one line. */
  readonly reason: string
  /** Every problem found together, this one first. */
  readonly violations: { keywordLocation: string; message: string }[]
}

/** A schema that cannot be upgraded or given in the requested dialect. */
export declare class UpgradeError extends Error {
  readonly keywordLocation: string
  readonly reason: string
}

/**
 * Upgrades a draft-04/06/07 or 2019-09 schema to 2020-12 (accepting exactly the same
 * instances); throws `UpgradeError` where 2020-12 cannot say the same.
 */
export declare function upgrade(schema: JsonSchema, dialect?: Dialect): Record<string, unknown> | boolean

/** The dialect `schema.$schema` declares, if it names one. */
export declare function declaredDialect(schema: unknown): Dialect | undefined

/** `{ valid, data, errorMessage }`, as the MCP SDK's validator functions answer. */
export type JsonSchemaValidatorResult<T> =
  | { valid: true; data: T; errorMessage: undefined }
  | { valid: false; data: undefined; errorMessage: string }

/**
 * The TypeScript MCP SDK's `jsonSchemaValidator` (the same interface in
 * `@modelcontextprotocol/sdk` 1.x and `@modelcontextprotocol/client`/`server` 2.x):
 * `new Client(info, { jsonSchemaValidator: new ToolschemaJsonSchemaValidator() })`.
 * Formats assert by default, as the SDK's own validators do.
 */
export declare class ToolschemaJsonSchemaValidator {
  constructor(options?: CompileOptions)
  getValidator<T>(schema: any): (input: unknown) => JsonSchemaValidatorResult<T>
}

/** The targets `~standard.jsonSchema` gives. */
export type StandardJsonSchemaTarget = 'draft-2020-12' | 'draft-07'

/**
 * A Standard Schema v1 and Standard JSON Schema v1 object (the `@standard-schema/spec`
 * 1.1 types, written out here so that the package needs no dependency).
 */
export interface ToolschemaStandardSchema<T = unknown> {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: 'toolschema'
    readonly validate: (
      value: unknown,
      options?: { readonly libraryOptions?: Record<string, unknown> },
    ) =>
      | { readonly value: T; readonly issues?: undefined }
      | {
          readonly issues: ReadonlyArray<{
            readonly message: string
            readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>
          }>
        }
    readonly jsonSchema: {
      readonly input: (options: {
        readonly target: StandardJsonSchemaTarget | ({} & string)
        readonly libraryOptions?: Record<string, unknown>
      }) => Record<string, unknown>
      readonly output: (options: {
        readonly target: StandardJsonSchemaTarget | ({} & string)
        readonly libraryOptions?: Record<string, unknown>
      }) => Record<string, unknown>
    }
    readonly types?: { readonly input: T; readonly output: T }
  }
}

/**
 * A plain JSON Schema as a Standard Schema: `~standard.validate` checks values with
 * toolschema (issues carry a message and a path, never a value), and
 * `~standard.jsonSchema.input/output({ target })` gives the schema, upgraded to
 * "draft-2020-12" when it declares an older draft. Throws `SchemaError` when it does not
 * compile.
 */
export declare function standardSchema<T = unknown>(
  schema: JsonSchema,
  options?: CompileOptions,
): ToolschemaStandardSchema<T>
