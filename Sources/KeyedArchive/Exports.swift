// The decoder's API hands out the value layer's types (``Inspection``, ``ArchivedValue``), so
// importing the decoder imports them too.
@_exported import ArchivedValues
