import SwiftCompilerPlugin
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@TableRowCoding`: writes the `init(row:)` and `encode(to: TableRowWriter)` a model would otherwise
/// inherit from Codable, one line per `CodingKeys` case. Structs get an extension (their memberwise
/// initializer survives); classes need a designated initializer, so they get members.
public struct TableRowCodingMacro: MemberMacro, ExtensionMacro {
    public static func expansion(of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
                                 conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let type = declaration.as(ClassDeclSyntax.self) else {
            if !declaration.is(StructDeclSyntax.self) { throw MacroError.notAModel }
            return []
        }
        let model = try Model(declaration)
        let isFinal = type.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
        var members = model.members(initializerPrefix: isFinal ? "" : "required ")
        if model.hadImplicitInitializer {
            // Declaring init(row:) takes away the implicit init() that such a class had.
            members.insert("\(raw: model.access)init() {}", at: 0)
        }
        return members
    }

    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(StructDeclSyntax.self) else { return [] }
        let model = try Model(declaration)
        let body = model.members(initializerPrefix: "").map(\.description).joined(separator: "\n\n")
        let decl: DeclSyntax = "extension \(type.trimmed) {\n\(raw: body)\n}"
        guard let extensionDecl = decl.as(ExtensionDeclSyntax.self) else { throw MacroError.notAModel }
        return [extensionDecl]
    }
}

/// What the expansion needs from the declaration: its columns in `CodingKeys` order.
struct Model {
    struct Property {
        let name: String
        /// The declared type, when written; the JSON fallback needs it spelled out.
        let type: String?
        /// A `let` with an initial value: written, never assigned.
        let isConstant: Bool
    }

    let columns: [Property]
    let access: String
    let hadImplicitInitializer: Bool

    init(_ declaration: some DeclGroupSyntax) throws {
        let members = declaration.memberBlock.members.map(\.decl)
        guard let keys = members.compactMap({ $0.as(EnumDeclSyntax.self) }).first(where: { $0.name.text == "CodingKeys" }) else {
            throw MacroError.noCodingKeys
        }
        let caseNames = keys.memberBlock.members.compactMap { $0.decl.as(EnumCaseDeclSyntax.self) }
            .flatMap { $0.elements.map { $0.name.text } }

        var stored: [String: Property] = [:]
        var everyStoredHasDefault = true
        for variable in members.compactMap({ $0.as(VariableDeclSyntax.self) }) {
            let modifiers = Set(variable.modifiers.map(\.name.text))
            if !modifiers.isDisjoint(with: ["static", "class", "lazy"]) { continue }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            for binding in variable.bindings {
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self), Model.isStored(binding) else { continue }
                let type = binding.typeAnnotation.map { Model.spelling(of: $0.type) }
                let hasDefault = binding.initializer != nil || (!isLet && (type?.hasSuffix("?") ?? false))
                if !hasDefault { everyStoredHasDefault = false }
                let name = pattern.identifier.text
                stored[name] = Property(name: name, type: type, isConstant: isLet && binding.initializer != nil)
            }
        }
        columns = caseNames.compactMap { stored[$0] }
        let modifiers = declaration.modifiers.map(\.name.text)
        access = modifiers.contains("public") || modifiers.contains("open") ? "public " : ""
        let declaresInitializer = members.contains { $0.is(InitializerDeclSyntax.self) }
        hadImplicitInitializer = !declaresInitializer && everyStoredHasDefault
    }

    /// A binding without accessors, or with observers only, holds storage.
    static func isStored(_ binding: PatternBindingSyntax) -> Bool {
        guard let accessors = binding.accessorBlock?.accessors else { return true }
        guard case .accessors(let list) = accessors else { return false }
        return list.allSatisfy { [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind) }
    }

    /// The type as an expression can name it (`T.self`); an implicitly unwrapped optional reads as an optional.
    static func spelling(of type: TypeSyntax) -> String {
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return unwrapped.wrappedType.trimmedDescription + "?"
        }
        return type.trimmedDescription
    }

    func members(initializerPrefix: String) -> [DeclSyntax] {
        // Typed columns are read into locals first and assigned after the last `try`: assigning between
        // throwing calls makes the compiler build the value aside and copy it (retaining every string).
        var reads: [String] = [], assignments: [String] = []
        for (position, property) in columns.enumerated() where !property.isConstant {
            let read = "try row.value(forKey: CodingKeys.`\(property.name)`\(property.type.map { ", as: \($0).self" } ?? ""))"
            if let type = property.type {
                reads.append("let column\(position): \(type) = \(read)")
                assignments.append("self.`\(property.name)` = column\(position)")
            } else {
                reads.append("self.`\(property.name)` = \(read)")
            }
        }
        reads += assignments
        let writes = columns.map { "try row.bind(self.`\($0.name)`, forKey: CodingKeys.`\($0.name)`)" }
        return [
            """
            \(raw: access)\(raw: initializerPrefix)init(row: borrowing Sift.TableRow) throws {
                \(raw: reads.joined(separator: "\n"))
            }
            """,
            """
            \(raw: access)func encode(to row: borrowing Sift.TableRowWriter) throws {
                \(raw: writes.joined(separator: "\n"))
            }
            """,
        ]
    }
}

enum MacroError: Error, CustomStringConvertible {
    case notAModel
    case noCodingKeys

    var description: String {
        switch self {
        case .notAModel: return "@TableRowCoding applies to a struct or a class that is a TableCodable model"
        case .noCodingKeys: return "@TableRowCoding reads the columns from a CodingKeys enum declared in the type's body"
        }
    }
}

@main
struct SiftMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [TableRowCodingMacro.self]
}
