# frozen_string_literal: true

# The drop-in for the official Ruby MCP SDK (gem `mcp`): after
#
#   require "mcp"
#   require "toolschema/mcp"
#
# `MCP::Tool::Schema` (and `InputSchema`/`OutputSchema` below it) checks tool schemas and
# validates arguments and results with toolschema instead of json_schemer, under the
# SDK's rules: JSON Schema 2020-12 whatever `$schema` says, same-document `$ref` and
# `$dynamicRef` only, `MAX_SCHEMA_DEPTH` and `MAX_SUBSCHEMA_COUNT`, the 2020-12
# meta-schema, formats as annotations. The SDK's public behaviour is kept: a bad schema
# raises `ArgumentError` ("Invalid JSON Schema: ..."; a `Toolschema::SchemaError`, which
# is one), bad arguments `MCP::Tool::InputSchema::ValidationError` ("Invalid arguments:
# ..."), a bad result `MCP::Tool::OutputSchema::ValidationError` ("Invalid result: ...").
# Messages name locations and never quote a value.

require "json"
require "toolschema"

module Toolschema
  # The MCP SDK integration.
  module MCP
    # Prepended to `MCP::Tool::Schema`: the caps, the reference rule and the meta-schema
    # are checked by one compile; validation reads the Ruby data in place.
    module ToolSchema
      # @return [Toolschema::Validator] the compiled schema
      def toolschema_validator
        @toolschema_validator
      end

      private

      # The caps and the same-document rule are checked by the compile in
      # `validate_schema!` (the SDK's order kept: a cap or a reference is reported before
      # any meta-schema violation).
      def validate_schema_bounds!; end

      def validate_schema!
        @toolschema_validator = Toolschema::MCP.compile(schema_for_validation)
      end

      def fully_validate(data)
        Toolschema::MCP.messages(@toolschema_validator, data)
      end
    end

    # The SDK's caps, as `MCP::Tool::Schema` defines them.
    def self.limits
      schema = ::MCP::Tool::Schema
      { max_depth: schema::MAX_SCHEMA_DEPTH, max_subschemas: schema::MAX_SUBSCHEMA_COUNT }
    end

    # @param schema [Hash] the SDK's normalised schema (Symbol keys, `$schema` removed)
    # @return [Toolschema::Validator]
    # @raise [Toolschema::SchemaError] (an ArgumentError) with the SDK's wording
    def self.compile(schema)
      Toolschema::Validator.new(schema, draft: :draft2020_12, same_document_refs: true, **limits)
    rescue Toolschema::SchemaError => e
      raise Toolschema::SchemaError.new("Invalid JSON Schema: #{sdk_message(e)}", e.kind, e.location, e.violations)
    end

    # The error strings `fully_validate` gives (empty when `data` conforms).
    def self.messages(validator, data)
      validator.validate(data).map(&:to_s)
    rescue TypeError
      # Not JSON data as it stands (a Time, a Struct, an object with #to_json in a
      # result): validated as the SDK will send it, through JSON.
      validator.validate(JSON.parse(JSON.generate(data, max_nesting: false))).map(&:to_s)
    end

    # The SDK's messages for its own rules (caps, references); the engine's otherwise.
    def self.sdk_message(error)
      all = [error, *error.violations]
      found = ->(kind) { all.find { |e| e.kind == kind } }
      if found.(:depth_exceeded)
        "nesting exceeds the maximum depth of #{limits[:max_depth]}."
      elsif found.(:too_many_subschemas)
        "document exceeds the maximum of #{limits[:max_subschemas]} subschema objects."
      elsif (ref = found.(:forbidden_reference))
        keyword = ref.location.split("/").last.to_s
        "only same-document #{keyword} (starting with '#') is supported: #{ref.location}: " \
          "#{ref.message.sub(/\A(invalid schema: )?#{Regexp.escape(ref.location)}: /, "")}."
      else
        error.message.sub(/\Ainvalid schema: /, "")
      end
    end
  end
end

unless defined?(::MCP::Tool::Schema)
  raise LoadError, "toolschema/mcp: require \"mcp\" first (the MCP SDK gem), then \"toolschema/mcp\""
end

# (Through `send`: documentation tools need not load the SDK to read this file.)
::MCP::Tool::Schema.send(:prepend, Toolschema::MCP::ToolSchema)
