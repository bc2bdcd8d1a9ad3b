/// A value bound to a statement parameter, sent to the server in binary format.
enum PGValue {
    case int(Int64)
    case text(String)
    case blob([UInt8])
    /// A bigint[] (e.g. message ids for one `= ANY($n)`).
    case intArray([Int64])
    /// A boolean.
    case bool(Bool)
    /// A text[] (user ids of a batch, signals).
    case textArray([String])
    /// A text[] whose elements may be NULL (message texts and image URLs of a batch).
    case optionalTextArray([String?])
    /// A bytea[] (the event bodies of a batch, written with one statement).
    case blobArray([[UInt8]])
    /// SQL NULL of the given type.
    case null(PGType)

    static func optionalText(_ value: String?) -> PGValue {
        value.map(PGValue.text) ?? .null(.text)
    }

    /// The parameter's type, fixed when its statement is prepared.
    var type: PGType {
        switch self {
        case .int: .int8
        case .bool: .bool
        case .text: .text
        case .blob: .bytea
        case .intArray: .int8Array
        case .textArray, .optionalTextArray: .textArray
        case .blobArray: .byteaArray
        case .null(let type): type
        }
    }

    /// Appends the binary wire form of the value (what `PQexecPrepared` sends with format 1).
    func appendBinary(to bytes: inout [UInt8]) {
        switch self {
        case .int(let number):
            Self.append(number, to: &bytes)
        case .bool(let flag):
            bytes.append(flag ? 1 : 0)
        case .text(let string):
            bytes.append(contentsOf: string.utf8)
        case .blob(let blob):
            bytes.append(contentsOf: blob)
        case .intArray(let numbers):
            Self.appendArray(element: .int8, count: numbers.count, to: &bytes) { index, bytes in
                Self.append(Int32(8), to: &bytes)
                Self.append(numbers[index], to: &bytes)
            }
        case .textArray(let strings):
            Self.appendArray(element: .text, count: strings.count, to: &bytes) { index, bytes in
                let utf8 = strings[index].utf8
                Self.append(Int32(truncatingIfNeeded: utf8.count), to: &bytes)
                bytes.append(contentsOf: utf8)
            }
        case .optionalTextArray(let strings):
            Self.appendArray(element: .text, count: strings.count, hasNulls: strings.contains(nil), to: &bytes) { index, bytes in
                guard let utf8 = strings[index]?.utf8 else { return Self.append(Int32(-1), to: &bytes) }
                Self.append(Int32(truncatingIfNeeded: utf8.count), to: &bytes)
                bytes.append(contentsOf: utf8)
            }
        case .blobArray(let blobs):
            Self.appendArray(element: .bytea, count: blobs.count, to: &bytes) { index, bytes in
                Self.append(Int32(truncatingIfNeeded: blobs[index].count), to: &bytes)
                bytes.append(contentsOf: blobs[index])
            }
        case .null:
            break
        }
    }

    /// PostgreSQL's binary array layout (array_send): dimensions, a has-nulls flag, the element type, then per
    /// dimension its length and lower bound (1), then each element as a length and its bytes.
    private static func appendArray(
        element: PGType, count: Int, hasNulls: Bool = false, to bytes: inout [UInt8], each: (Int, inout [UInt8]) -> Void
    ) {
        append(Int32(count == 0 ? 0 : 1), to: &bytes)
        append(Int32(hasNulls ? 1 : 0), to: &bytes)
        append(element.rawValue, to: &bytes)
        guard count > 0 else { return }
        append(Int32(truncatingIfNeeded: count), to: &bytes)
        append(Int32(1), to: &bytes)
        for index in 0..<count { each(index, &bytes) }
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}

/// The PostgreSQL type OIDs the store binds (pg_type.h).
enum PGType: UInt32 {
    case bool = 16
    case bytea = 17
    case int8 = 20
    case text = 25
    case byteaArray = 1001
    case textArray = 1009
    case int8Array = 1016
}
