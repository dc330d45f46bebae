import XCTest
final class SiftToolsPlaceholderTests: XCTestCase { func testPlaceholder() {} }
