extension Array {
    /// The elements split by the loop each belongs to: part `i` holds, in order, those whose `loopIndex` is `i`.
    /// Elements with an index outside `0..<loopCount` (a stale or foreign handle) are left out. Fan-out hands each
    /// loop ONE task with its part, instead of one task per element.
    public func groupedByLoop(loopCount: Int, loopIndex: (Element) -> Int) -> [[Element]] {
        var parts = [[Element]](repeating: [], count: loopCount)
        for element in self {
            let index = loopIndex(element)
            if index >= 0 && index < loopCount { parts[index].append(element) }
        }
        return parts
    }
}
