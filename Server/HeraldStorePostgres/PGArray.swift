import CLibPQ

/// Reads a one-dimensional array column in PostgreSQL's binary format (`array_send`): a header (dimensions, a
/// has-nulls flag, the element type, then size and lower bound per dimension) and each element as a 4-byte big-endian
/// length (-1 for NULL) and its bytes. The same layout ``PGValue`` writes for array parameters.
enum PGArray {
    /// The elements' bytes (nil for NULL elements); nil when the bytes are not a one-dimensional array.
    static func elements(_ bytes: UnsafeRawBufferPointer) -> [UnsafeRawBufferPointer?]? {
        var offset = 0
        func int32() -> Int32? {
            guard offset + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for index in offset..<offset + 4 { value = value << 8 | UInt32(bytes[index]) }
            offset += 4
            return Int32(bitPattern: value)
        }
        guard let dimensions = int32(), int32() != nil, int32() != nil else { return nil }
        if dimensions == 0 { return [] }
        guard dimensions == 1, let count = int32(), count >= 0, int32() != nil else { return nil }
        var elements: [UnsafeRawBufferPointer?] = []
        elements.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let length = int32() else { return nil }
            if length < 0 {
                elements.append(nil)
                continue
            }
            guard offset + Int(length) <= bytes.count else { return nil }
            elements.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(length)]))
            offset += Int(length)
        }
        return elements
    }

    /// A bigint element (8 bytes, big-endian); nil for NULL or another width.
    static func int64(_ element: UnsafeRawBufferPointer?) -> Int64? {
        guard let element, element.count == 8 else { return nil }
        var value: UInt64 = 0
        for byte in element { value = value << 8 | UInt64(byte) }
        return Int64(bitPattern: value)
    }
}

extension PGRow {
    /// A bigint[] column; nil for NULL, a malformed array or a NULL element.
    func intArray(_ column: Int32) -> [Int64]? {
        withArray(column) { elements in
            var values: [Int64] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard let value = PGArray.int64(element) else { return nil }
                values.append(value)
            }
            return values
        }
    }

    /// A text[] column; nil for NULL, a malformed array or a NULL element.
    func textArray(_ column: Int32) -> [String]? {
        withArray(column) { elements in
            var values: [String] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard let element else { return nil }
                values.append(String(decoding: element, as: UTF8.self))
            }
            return values
        }
    }

    /// A bytea[] column; nil for NULL, a malformed array or a NULL element.
    func blobArray(_ column: Int32) -> [[UInt8]]? {
        withArray(column) { elements in
            var values: [[UInt8]] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard let element else { return nil }
                values.append(Array(element))
            }
            return values
        }
    }

    private func withArray<T>(_ column: Int32, _ body: ([UnsafeRawBufferPointer?]) -> T?) -> T? {
        guard !isNull(column), let value = PQgetvalue(result, row, column) else { return nil }
        let bytes = UnsafeRawBufferPointer(start: value, count: Int(PQgetlength(result, row, column)))
        guard let elements = PGArray.elements(bytes) else { return nil }
        return body(elements)
    }
}
