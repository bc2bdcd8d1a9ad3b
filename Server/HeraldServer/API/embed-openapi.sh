#!/bin/sh
# Regenerates OpenAPIDocument.swift from openapi.json, the one source of truth. Run after editing openapi.json:
#   sh Server/HeraldServer/API/embed-openapi.sh
# (APIOpenAPITests fails while the two differ.)
set -eu
dir=$(dirname "$0")
{
    echo '// Generated from openapi.json by embed-openapi.sh; edit openapi.json, then run the script.'
    echo '/// The OpenAPI 3.1 document of `/api/v1`, served at `/api/v1/openapi.json`.'
    echo 'enum OpenAPIDocument {'
    echo '    static let json = #"""'
    cat "$dir/openapi.json"
    echo ''
    echo '"""#'
    echo '}'
} > "$dir/OpenAPIDocument.swift"
