# frozen_string_literal: true

module Toolschema
  # The gem's version (the engine's: both are released together).
  VERSION = "0.1.0"
end
