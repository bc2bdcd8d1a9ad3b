import ArgumentParser
import Glibc

/// `HERALD_<NAME>` for every option of an ArgumentParser command: a variable that is set (and not empty) stands for
/// `--name <value>`, and the command line's own `--name` (or its short form) wins over it.
///
/// The options are read off the command's own declarations (the property names ArgumentParser turns into `--names`),
/// so a new option gets its variable without a second list to keep in step.
public enum EnvironmentOptions {
    /// `arguments` (without the program name) with the options the environment gives put before the command line's
    /// own, for the command `root` or the subcommand the leading words of `arguments` name.
    ///
    /// - Parameters:
    ///   - except: option names (without dashes) the command reads from the environment itself.
    /// - Returns: the arguments to hand to `root.main(_:)`. A flag's variable adds `--name` when it is 1, true, yes or
    ///   on; a repeatable option's variable is split at commas, one `--name` each.
    public static func arguments(
        _ arguments: [String], for root: any ParsableCommand.Type, environment: [String: String], except: Set<String> = []
    ) -> [String] {
        let (command, depth) = selected(root, arguments)
        // Words after `--` are values, not options: a variable never stands in for them.
        let options = arguments.prefix { $0 != "--" }
        var added: [String] = []
        for declared in declaredOptions(command) where !except.contains(declared.name) {
            guard let text = environment[variableName(declared.name)], !text.isEmpty else { continue }
            let given = options.contains { $0 == "--" + declared.name || $0.hasPrefix("--" + declared.name + "=") }
            switch declared.kind {
            case .flag:
                if !given, ["1", "true", "yes", "on"].contains(text.lowercased()) { added.append("--" + declared.name) }
            case .value:
                // Left out when given as `--name`; put first, so that a short `-n` given later still wins.
                if !given { added += ["--" + declared.name, text] }
            case .values:
                // Values add up: a repeatable option given on the command line replaces its variable's list.
                guard !given else { continue }
                for item in text.split(separator: ",") { added += ["--" + declared.name, String(item)] }
            }
        }
        // Right after the command's name, before what the command line gives: of an option given twice the last
        // counts, so a flag (long or short) wins over its variable.
        return Array(arguments[..<depth]) + added + Array(arguments[depth...])
    }

    /// This process's environment (without Foundation, which `herald` does not link).
    public static func processEnvironment() -> [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") { variables[String(text[..<equals])] = String(text[text.index(after: equals)...]) }
            entry += 1
        }
        return variables
    }

    /// `HERALD_` and the option's name in upper case with `-` as `_` (`--setup-timeout-seconds` →
    /// `HERALD_SETUP_TIMEOUT_SECONDS`).
    public static func variableName(_ option: String) -> String {
        "HERALD_" + option.uppercased().replacing("-", with: "_")
    }

    /// One option a command declares.
    struct Declared: Equatable {
        enum Kind { case flag, value, values }
        var name: String
        var kind: Kind
    }

    /// The subcommand the leading words name (`herald-bench fanout …` → `fanout`), else `root`.
    public static func selectedCommand(_ root: any ParsableCommand.Type, _ arguments: [String]) -> any ParsableCommand.Type {
        selected(root, arguments).command
    }

    /// The subcommand the leading words name, and how many words name it.
    static func selected(_ root: any ParsableCommand.Type, _ arguments: [String]) -> (command: any ParsableCommand.Type, depth: Int) {
        var command = root
        var depth = 0
        for word in arguments {
            guard let next = command.configuration.subcommands.first(where: { $0._commandName == word }) else { break }
            command = next
            depth += 1
        }
        return (command, depth)
    }

    /// The options `type` declares, its option groups' included: each stored property wrapped in `@Option` or
    /// `@Flag`, by the name ArgumentParser gives it (camelCase → kebab-case).
    static func declaredOptions(_ type: any ParsableArguments.Type) -> [Declared] {
        Mirror(reflecting: type.init()).children.flatMap { child -> [Declared] in
            if let group = child.value as? any DeclaresArgumentsType { return declaredOptions(group.argumentsType) }
            guard let label = child.label?.drop(while: { $0 == "_" }) else { return [] }
            let wrapper = String(describing: Swift.type(of: child.value))
            let kind: Declared.Kind
            if wrapper.hasPrefix("Flag<") {
                kind = .flag
            } else if wrapper.hasPrefix("Option<Array<") {
                kind = .values
            } else if wrapper.hasPrefix("Option<") {
                kind = .value
            } else {
                return []
            }
            return [Declared(name: kebabCase(String(label)), kind: kind)]
        }
    }

    /// `setupTimeoutSeconds` → `setup-timeout-seconds`, as ArgumentParser names an option after its property.
    static func kebabCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase, !result.isEmpty { result.append("-") }
            result += character.lowercased()
        }
        return result
    }
}

/// An `@OptionGroup`, whose options belong to the command that includes it.
protocol DeclaresArgumentsType {
    var argumentsType: any ParsableArguments.Type { get }
}

extension OptionGroup: DeclaresArgumentsType {
    var argumentsType: any ParsableArguments.Type { Value.self }
}
