import PropertyList

/// A moment as archives store it (seconds since 2001), the same type property lists use; named
/// here so that code working with ``ArchivedValue`` need not import the property-list module.
public typealias ArchiveDate = PropertyList.ArchiveDate
