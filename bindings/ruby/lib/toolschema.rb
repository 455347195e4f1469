# frozen_string_literal: true

require_relative "toolschema/version"

# A fast, redaction-safe JSON Schema validator (2020-12, 2019-09, draft-07/06/04) for the
# schemas MCP tools publish: the toolschema engine, native, over Ruby data read in place.
#
# @example Three lines for a validator
#   require "toolschema"
#   validator = Toolschema::Validator.new({ type: "object", required: ["city"] })
#   validator.valid?({ city: "Paris" }) # => true
module Toolschema
  # A schema that cannot be used: malformed, not valid against its meta-schema, past the
  # caps, or with a reference the options forbid. The message names the keyword location.
  class SchemaError < ArgumentError
    # @return [Symbol] what is wrong (+:meta_schema_violation+, +:depth_exceeded+,
    #   +:too_many_subschemas+, +:forbidden_reference+, +:invalid_pattern+,
    #   +:unresolved_reference+, +:invalid_keyword+, +:malformed_json+, ...)
    attr_reader :kind
    # @return [String] the JSON Pointer of the keyword at fault ("" for the root)
    attr_reader :location
    # @return [Array<SchemaError>] every problem when several were found together
    attr_reader :violations

    # @param message [String]
    # @param kind [Symbol]
    # @param location [String]
    # @param violations [Array<SchemaError>]
    def initialize(message = "invalid schema", kind = :invalid_schema, location = "", violations = [])
      super(message)
      @kind = kind
      @location = location
      @violations = violations.freeze
    end
  end

  # JSON text that is not one JSON value (or nests deeper than 127 levels): where, never
  # what (no part of the text is quoted).
  class ParseError < ArgumentError
    # @return [Integer] the byte offset of the problem
    attr_reader :offset
    # @return [Integer] its line (from 1)
    attr_reader :line
    # @return [Integer] its column (from 1)
    attr_reader :column

    # @param message [String]
    # @param offset [Integer]
    # @param line [Integer]
    # @param column [Integer]
    def initialize(message = "malformed JSON", offset = 0, line = 1, column = 1)
      super(message)
      @offset = offset
      @line = line
      @column = column
    end
  end

  # One way in which data fails its schema. It never holds a value of the data: a
  # property name found only in the data appears only inside {#instance_location}.
  class Error
    # @return [String] where in the data: a JSON Pointer ("" for the root)
    attr_reader :instance_location
    # @return [String] the keyword that failed, as evaluation reached it (through +$ref+)
    attr_reader :keyword_location
    # @return [Symbol] the keyword that failed (+:type+, +:required+, +:maximum+, ...)
    attr_reader :kind
    # @return [String] what the keyword asserted, without the location
    attr_reader :message

    # @api private
    def initialize(instance_location, keyword_location, kind, message)
      @instance_location = instance_location.freeze
      @keyword_location = keyword_location.freeze
      @kind = kind
      @message = message.freeze
      freeze
    end

    # @return [String] "location: message" ("/" for the root)
    def to_s
      "#{instance_location.empty? ? "/" : instance_location}: #{message}"
    end

    # @return [Hash{Symbol => Object}]
    def to_h
      { instance_location: instance_location, keyword_location: keyword_location, kind: kind, message: message }
    end

    # @return [String]
    def inspect
      "#<Toolschema::Error #{self}>"
    end

    # @return [Boolean]
    def ==(other)
      other.is_a?(Error) && to_h == other.to_h
    end
    alias eql? ==

    # @return [Integer]
    def hash
      to_h.hash
    end
  end

  # Raised by {Validator#validate!}: the data does not conform.
  class ValidationError < StandardError
    # @return [Array<Error>] every error, in evaluation order
    attr_reader :errors

    # @param errors [Array<Error>]
    def initialize(errors)
      @errors = errors.freeze
      super(errors.map(&:to_s).join(", "))
    end
  end
end

require_relative "toolschema/toolschema_ruby"

module Toolschema
  # A compiled schema. Immutable (frozen) and safe to share across threads.
  #
  # Data is read as +JSON.dump+ would see it: Hash (String or Symbol keys), Array,
  # String (UTF-8, US-ASCII, or binary holding UTF-8), Integer of any size within the
  # range of JSON numbers, Float (finite), true, false, nil, and Symbol values as
  # strings. Anything else, a cycle, or an invalid encoding raises +TypeError+ naming
  # the location; data nested deeper than 127 levels raises +ArgumentError+.
  # Subclasses of Hash, Array and String are read by their contents (their overridden
  # methods are not called).
  #
  # @example
  #   v = Toolschema::Validator.new('{"properties": {"n": {"maximum": 3}}}')
  #   v.valid?({ "n" => 5 })          # => false
  #   v.validate({ n: 5 }).map(&:to_s) # => ["/n: must be at most 3"]
  #   v.valid_json?('{"n": 1}')        # => true
  class Validator
    # @param schema [Hash, String, true, false] the schema, as Ruby data (String or
    #   Symbol keys) or JSON text
    # @param draft [Symbol, nil] the dialect of a schema without +$schema+:
    #   +:draft4+, +:draft6+, +:draft7+, +:draft2019_09+ or +:draft2020_12+ (the default)
    # @param formats [Boolean] whether +format+ asserts (default: an annotation only)
    # @param content [Boolean] whether +contentEncoding: "base64"+ and
    #   +contentMediaType: "application/json"+ assert (default: annotations only)
    # @param same_document_refs [Boolean] whether +$ref+/+$dynamicRef+ must start with
    #   +#+, as the MCP SDKs require
    # @param max_depth [Integer] the deepest value of the schema document (root at 1)
    # @param max_subschemas [Integer] the most objects the schema document may hold
    # @param documents [Hash{String => Hash, String}] other schema documents by URI, so
    #   that references to them resolve (nothing is ever fetched)
    # @raise [SchemaError] for a bad schema (checked against its meta-schema too)
    # @raise [TypeError] for schema data that is not JSON data
    def self.new(schema, draft: nil, formats: false, content: false, same_document_refs: false, max_depth: 64,
                 max_subschemas: 10_000, documents: {})
      unless max_depth.is_a?(Integer) && max_depth.positive? && max_subschemas.is_a?(Integer) && max_subschemas.positive?
        raise ArgumentError, "max_depth and max_subschemas must be positive Integers"
      end

      __new(schema, draft, formats ? true : false, content ? true : false, same_document_refs ? true : false,
            [max_depth, 2**62].min, [max_subschemas, 2**62].min, documents.to_a).freeze
    end

    # @!method valid?(data)
    #   @param data [Object] Ruby data
    #   @return [Boolean] whether +data+ conforms
    #   @raise [TypeError] when +data+ is not JSON data

    # @!method validate(data)
    #   @param data [Object] Ruby data
    #   @return [Array<Error>] every error, empty when +data+ conforms
    #   @raise [TypeError] when +data+ is not JSON data

    # @!method valid_json?(text)
    #   Validates JSON text with no Ruby object built; a long text (16 KiB or more) is
    #   validated with the GVL released.
    #   @param text [String] one JSON value
    #   @return [Boolean]
    #   @raise [ParseError] when +text+ is not one JSON value

    # @!method validate_json(text)
    #   @param text [String] one JSON value
    #   @return [Array<Error>]
    #   @raise [ParseError] when +text+ is not one JSON value

    # @param data [Object] Ruby data
    # @return [nil]
    # @raise [ValidationError] carrying every error, when +data+ does not conform
    def validate!(data)
      errors = validate(data)
      raise ValidationError, errors unless errors.empty?

      nil
    end

    OUTPUT_FORMATS = %i[flag basic detailed verbose].freeze
    private_constant :OUTPUT_FORMATS

    # The standard output (JSON Schema 2020-12, section 12) of evaluating +data+.
    #
    # @param data [Object] Ruby data
    # @param output [Symbol] +:flag+, +:basic+, +:detailed+ or +:verbose+
    # @return [Hash{String => Object}] e.g. +{"valid" => false, "errors" => [...]}+
    def evaluate(data, output: :basic)
      unless OUTPUT_FORMATS.include?(output)
        raise ArgumentError, "unknown output format #{output.inspect}: expected one of #{OUTPUT_FORMATS.join(", ")}"
      end

      __evaluate(data, output.to_s)
    end
  end
end
