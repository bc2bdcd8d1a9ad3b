/// A failure that ends a benchmark run (setup, socket, or server refusal), with what happened.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
