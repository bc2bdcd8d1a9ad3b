/// The OpenAPI 3.1 document of `/api/v1`, served at `/api/v1/openapi.json`: the bytes of openapi.json, which SwiftPM
/// compiles in (`.embedInCode` in Package.swift), so the file is the one copy and nothing regenerates it.
enum OpenAPIDocument {
    static let json = String(decoding: PackageResources.openapi_json, as: UTF8.self)
}
